package io.roost.it;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** The suite's PostgreSQL (the dev services'), for what a client-side test arranges or checks behind the API. */
public final class Database {

    private Database() {
    }

    public static Connection connect() throws SQLException {
        return DriverManager.getConnection(System.getProperty("roost.test.db.url"), "roost", "roost");
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
