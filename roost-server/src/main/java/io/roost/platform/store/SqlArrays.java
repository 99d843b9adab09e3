package io.roost.platform.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collection;
import java.util.stream.Collectors;

/** Array parameters: bigint[] literals for JPA native queries, typed arrays for plain JDBC. */
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

    /**
     * Binds {@code params} from parameter 1 on: a {@code Long[]}, {@code Integer[]},
     * {@code Short[]}, {@code Boolean[]}, {@code String[]} or {@code byte[][]} as a SQL array of
     * int8, int4, int2, bool, varchar or bytea (for {@code unnest(?::int8[], ...)} batches and
     * {@code = ANY(?)} probes), anything else as itself.
     */
    public static void bind(Connection c, PreparedStatement ps, Object... params) throws SQLException {
        for (int i = 0; i < params.length; i++) {
            Object p = params[i];
            String type = p instanceof Long[] ? "int8" : p instanceof Integer[] ? "int4" : p instanceof Short[] ? "int2"
                    : p instanceof Boolean[] ? "bool" : p instanceof String[] ? "varchar" : p instanceof byte[][] ? "bytea" : null;
            if (type != null) {
                ps.setArray(i + 1, c.createArrayOf(type, (Object[]) p));
            } else {
                ps.setObject(i + 1, p);
            }
        }
    }
}
