package io.roost.platform.datasource;

/**
 * The one rule for "this SQLState means PostgreSQL is out of reach": used by the application
 * ({@link io.roost.platform.problem.Unreachable}, 503 to the caller) and by the datasource's
 * {@link PostgresExceptionSorter} (the pool drops the connection). Plain Java: it also runs in the
 * server module {@code io.roost.datasource}.
 */
public final class SqlStates {

    private SqlStates() {
    }

    /**
     * Class 08 (connection exception: cannot connect, connection lost or already closed), 57P01-03
     * (the server is shutting down, crashed, or cannot take connections yet) and 53300 (it has no
     * connection slot left).
     */
    /**
     * 22021 and 22P05: text the database cannot store (the NUL character U+0000, in a text column or
     * in jsonb). Only a caller's input carries it, so it is the caller's fault, not the server's.
     */
    public static boolean unstorableText(String sqlState) {
        return "22021".equals(sqlState) || "22P05".equals(sqlState);
    }

    public static boolean unreachable(String sqlState) {
        return sqlState != null && (sqlState.startsWith("08") || sqlState.equals("57P01") || sqlState.equals("57P02")
                || sqlState.equals("57P03") || sqlState.equals("53300"));
    }
}
