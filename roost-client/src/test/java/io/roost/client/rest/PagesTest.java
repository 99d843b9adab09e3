package io.roost.client.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class PagesTest {

    private record Page(List<Integer> items, String next) {
    }

    /** Three pages keyed by cursor: null → "a" → "b" → end. */
    private static final Map<String, Page> PAGES = new java.util.HashMap<>();

    static {
        PAGES.put(null, new Page(List.of(1, 2), "a"));
        PAGES.put("a", new Page(List.of(3, 4), "b"));
        PAGES.put("b", new Page(List.of(5), null));
    }

    /** The three pages, each cursor asked for noted in {@code fetched}. */
    private static Pages<Page, Integer> recording(List<String> fetched) {
        return new Pages<>(cursor -> {
            fetched.add(String.valueOf(cursor));
            return PAGES.get(cursor);
        }, Page::items, Page::next);
    }

    @Test
    void theStreamHasEveryItemOfEveryPageInOrderAndFetchesEachPageOnce() {
        List<String> fetched = new ArrayList<>();
        Pages<Page, Integer> pages = recording(fetched);
        assertEquals(List.of(1, 2, 3, 4, 5), pages.stream().collect(Collectors.toList()));
        assertEquals(List.of("null", "a", "b"), fetched);
    }

    @Test
    void pagesAreFetchedOnlyAsTheIterationReachesThem() {
        List<String> fetched = new ArrayList<>();
        Pages<Page, Integer> pages = recording(fetched);
        assertEquals(List.of(1, 2, 3), pages.stream().limit(3).collect(Collectors.toList()));
        assertEquals(List.of("null", "a"), fetched);
    }

    @Test
    void anEmptyPageWithANextCursorIsPassedOver() {
        Map<String, Page> gappy = Map.of("x", new Page(List.of(), "y"), "y", new Page(List.of(9), null));
        Pages<Page, Integer> pages = new Pages<>(cursor -> cursor == null ? new Page(List.of(), "x") : gappy.get(cursor),
                Page::items, Page::next);
        assertEquals(List.of(9), pages.stream().collect(Collectors.toList()));
    }

    @Test
    void aPageNamingItselfAsNextEndsTheIteration() {
        Pages<Page, Integer> pages = new Pages<>(cursor -> new Page(List.of(1), "same"), Page::items, Page::next);
        assertEquals(List.of(1, 1), pages.stream().collect(Collectors.toList()));
    }
}
