package io.roost.platform.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.postgresql.PGStatement;

/**
 * Statements on tables whose size swings by orders of magnitude within minutes: the device routes
 * are empty after a node restart and hold tens of thousands of rows a minute later. PostgreSQL
 * caches a server-side prepared statement's generic plan, built from the statistics of its moment;
 * autovacuum analyzes the table empty right after a burst ends, and the plans cached then
 * seq-scanned the whole table for every login of the next burst (at 19,000 connections the
 * database's CPU per login went up fivefold). A statement made here is sent unnamed every time, so
 * PostgreSQL plans each execution with its parameters and the table's current size: a few tens of
 * microseconds of planning per statement, once per batch.
 */
public final class CustomPlans {

    private CustomPlans() {
    }

    public static PreparedStatement prepare(Connection c, String sql) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        ps.unwrap(PGStatement.class).setPrepareThreshold(0);
        return ps;
    }
}
