package io.roost.client.rest;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * Every item of a keyset-paged list, fetched a page at a time as the iteration reaches it: the
 * first page with no cursor, then each with the page before's {@code next} until it is null.
 */
public final class Pages<P, T> implements Iterable<T> {

    /** Fetches the page at {@code cursor} (null: the first). */
    @FunctionalInterface
    public interface Fetch<P> {
        P page(String cursor);
    }

    private final Fetch<P> fetch;
    private final Function<P, List<T>> items;
    private final Function<P, String> next;

    public Pages(Fetch<P> fetch, Function<P, List<T>> items, Function<P, String> next) {
        this.fetch = Objects.requireNonNull(fetch);
        this.items = Objects.requireNonNull(items);
        this.next = Objects.requireNonNull(next);
    }

    public Stream<T> stream() {
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(iterator(), Spliterator.ORDERED | Spliterator.NONNULL), false);
    }

    @Override
    public Iterator<T> iterator() {
        return new Iterator<>() {
            private Iterator<T> page;
            private String cursor;
            private boolean last;

            @Override
            public boolean hasNext() {
                while (page == null || !page.hasNext()) {
                    if (last) {
                        return false;
                    }
                    P p = fetch.page(cursor);
                    List<T> got = items.apply(p);
                    String following = next.apply(p);
                    // a page that names itself as the next one would repeat forever
                    last = following == null || following.equals(cursor);
                    cursor = following;
                    page = got == null ? List.<T>of().iterator() : got.iterator();
                }
                return true;
            }

            @Override
            public T next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return page.next();
            }
        };
    }
}
