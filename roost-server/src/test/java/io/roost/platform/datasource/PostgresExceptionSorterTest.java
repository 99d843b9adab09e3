package io.roost.platform.datasource;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;

class PostgresExceptionSorterTest {

    private final PostgresExceptionSorter sorter = new PostgresExceptionSorter();

    /** What a pooled connection reports once a restart has ended its session: first 57P01, then 08003. */
    @Test
    void aConnectionEndedByTheServerIsBroken() {
        assertTrue(sorter.isExceptionFatal(new SQLException("FATAL: terminating connection due to administrator command", "57P01")));
        assertTrue(sorter.isExceptionFatal(new PSQLException("This connection has been closed.", PSQLState.CONNECTION_DOES_NOT_EXIST)));
        assertTrue(sorter.isExceptionFatal(new PSQLException("An I/O error occurred while sending to the backend.",
                PSQLState.CONNECTION_FAILURE)));
    }

    @Test
    void statementErrorsLeaveTheConnectionInThePool() {
        assertFalse(sorter.isExceptionFatal(new SQLException("duplicate key value violates unique constraint", "23505")));
        assertFalse(sorter.isExceptionFatal(new SQLException("could not serialize access", "40001")));
        assertFalse(sorter.isExceptionFatal(new SQLException("canceling statement due to statement timeout", "57014")));
        assertFalse(sorter.isExceptionFatal(new SQLException("no state")));
    }
}
