package io.roost.platform.store;

import java.util.Collection;
import java.util.stream.Collectors;

/** Array parameters for JPA native queries. */
public final class SqlArrays {

    private SqlArrays() {
    }

    /**
     * A bigint[] literal ({1,2,3}) for {@code = ANY(CAST(?1 AS bigint[]))}: a text parameter works
     * the same through every JPA native-query path, and one SQL string serves any list length.
     */
    public static String bigints(Collection<Long> ids) {
        return ids.stream().map(String::valueOf).collect(Collectors.joining(",", "{", "}"));
    }
}
