package io.roost.platform.store;

import jakarta.ejb.ApplicationException;
import java.sql.SQLException;

/**
 * A store's failed JDBC statement, rolling its transaction back; {@link #deadlock()} says whether
 * running the transaction again is the cure (a deadlock or a serialization failure).
 */
@ApplicationException(rollback = true)
public class StatementFailed extends RuntimeException {

    private final String sqlState;

    public StatementFailed(String what, SQLException e) {
        super(what + " statement failed: " + e.getMessage(), e);
        this.sqlState = e.getSQLState();
    }

    public boolean deadlock() {
        return "40P01".equals(sqlState) || "40001".equals(sqlState);
    }
}
