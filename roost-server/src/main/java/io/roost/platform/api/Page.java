package io.roost.platform.api;

import io.roost.platform.problem.ProblemException;
import jakarta.json.bind.annotation.JsonbNillable;
import java.util.List;
import java.util.function.Function;

/**
 * A keyset page: {@code items}, and {@code next}, the cursor of the following page (null on the
 * last). Resources fetch one row more than asked; that extra row only says whether there is more.
 */
@JsonbNillable
public record Page<T>(List<T> items, String next) {

    /** The first {@code limit} of {@code fetched} (fetched with limit + 1) as views; the cursor comes from the last view. */
    public static <R, T> Page<T> of(List<R> fetched, int limit, Function<R, T> view, Function<T, String> cursor) {
        List<T> items = fetched.stream().limit(limit).map(view).toList();
        return new Page<>(items, fetched.size() > limit ? cursor.apply(items.get(items.size() - 1)) : null);
    }

    /** A page that is complete as it is (exact look-ups, best-match lists). */
    public static <T> Page<T> last(List<T> items) {
        return new Page<>(items, null);
    }

    /** 400 {@code invalid-limit} unless 1 ≤ limit ≤ max. */
    public static int checkLimit(int limit, int max) {
        if (limit < 1 || limit > max) {
            throw ProblemException.badRequest("invalid-limit", "limit is 1 to " + max + ".");
        }
        return limit;
    }
}
