package io.roost.platform.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * Reads over plain JDBC, for statements on hot paths (every bearer request, every presence
 * change) where an ORM session per query costs more than the query.
 */
public final class Jdbc {

    private Jdbc() {
    }

    /** Reads one row of a result set. */
    @FunctionalInterface
    public interface Row<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /**
     * Runs {@code sql} on a connection of {@code dataSource} (the caller's transaction's, if it has
     * one), {@code params} bound as {@link SqlArrays#bind} binds them, and reads every row.
     */
    public static <T> List<T> query(DataSource dataSource, String sql, Row<T> row, Object... params) {
        return query(dataSource, Jdbc::failed, sql, row, params);
    }

    /** As {@link #query(DataSource, String, Row, Object...)}, a failure turned into the caller's own exception. */
    public static <T> List<T> query(DataSource dataSource, Function<SQLException, RuntimeException> failure, String sql,
                                    Row<T> row, Object... params) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            SqlArrays.bind(c, ps, params);
            List<T> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(row.read(rs));
                }
            }
            return rows;
        } catch (SQLException e) {
            throw failure.apply(e);
        }
    }

    /** Runs one insert, update or delete the same way; answers the row count. */
    public static int update(DataSource dataSource, Function<SQLException, RuntimeException> failure, String sql,
                             Object... params) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            SqlArrays.bind(c, ps, params);
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw failure.apply(e);
        }
    }

    /** The first row of a result, if any. */
    public static <T> Optional<T> first(List<T> rows) {
        return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
    }

    private static RuntimeException failed(SQLException e) {
        return new IllegalStateException("query failed: " + e.getMessage(), e);
    }
}
