package io.roost.it;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** The suite's PostgreSQL (the dev services'), for what a client-side test arranges or checks behind the API. */
public final class Database {

    private Database() {
    }

    /** How many backends wait for a lock that backend {@code ?} holds. */
    public static final String BLOCKED_BY = "SELECT count(*) FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))";

    public static Connection connect() throws SQLException {
        return DriverManager.getConnection(System.getProperty("roost.test.db.url"), "roost", "roost");
    }

    /** The one value a query returns, on a connection of its own (no transaction). */
    public static long queryLong(DataSource db, String sql, Object... params) throws SQLException {
        try (Connection c = db.getConnection()) {
            return queryLong(c, sql, params);
        }
    }

    /** The one value a query returns, on this connection (in its transaction, if it has one). */
    public static long queryLong(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Runs one insert, update or delete on this connection; how many rows it changed. */
    public static int execute(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            return ps.executeUpdate();
        }
    }

    /** The plan PostgreSQL would run {@code sql} with, as EXPLAIN prints it. */
    public static String plan(Statement st, String sql) throws SQLException {
        StringBuilder plan = new StringBuilder();
        try (ResultSet rs = st.executeQuery("EXPLAIN " + sql)) {
            while (rs.next()) {
                plan.append(rs.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }
}
