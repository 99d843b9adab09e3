package io.roost.it;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/** The suite's PostgreSQL (the dev services'), for what a client-side test arranges or checks behind the API. */
public final class Database {

    private Database() {
    }

    public static Connection connect() throws SQLException {
        return DriverManager.getConnection(System.getProperty("roost.test.db.url"), "roost", "roost");
    }
}
