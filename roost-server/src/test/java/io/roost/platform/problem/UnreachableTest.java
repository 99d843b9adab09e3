package io.roost.platform.problem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.platform.messaging.MessagingException;
import io.roost.platform.problem.Unreachable.Dependency;
import jakarta.ejb.EJBException;
import jakarta.resource.ResourceException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Optional;
import org.apache.rocketmq.client.common.ClientErrorCode;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.remoting.exception.RemotingConnectException;
import org.hibernate.exception.JDBCConnectionException;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;
import org.junit.jupiter.api.Test;

/** The failures seen while PostgreSQL or RocketMQ is away, as the layers above wrap them. */
class UnreachableTest {

    @Test
    void connectionRefusedUnderEjbAndOurOwnWrapping() {
        var refused = new PSQLException("Connection to 127.0.0.1:5432 refused.", PSQLState.CONNECTION_UNABLE_TO_CONNECT);
        var wrapped = new EJBException(new IllegalStateException("token lookup failed", refused));
        assertEquals(Optional.of(Dependency.DATABASE), Unreachable.dependencyOf(wrapped));
    }

    @Test
    void serverShuttingDownOrStarting() {
        for (String state : new String[] {"57P01", "57P02", "57P03", "08003", "08006", "53300"}) {
            assertTrue(Unreachable.isCause(new RuntimeException(new SQLException("FATAL", state))), state);
        }
        assertTrue(Unreachable.isCause(new SQLTransientConnectionException("pool timeout")));
    }

    @Test
    void thePoolHavingNoConnection() {
        var pool = new ResourceException("IJ000453: Unable to get managed connection for java:jboss/datasources/RoostDS");
        assertTrue(Unreachable.isCause(new SQLException("IJ031019: You are trying to use a connection factory", pool)));
    }

    @Test
    void hibernatesConnectionFailure() {
        assertTrue(Unreachable.isCause(new JDBCConnectionException("could not prepare statement", new SQLException("closed"))));
    }

    @Test
    void nextAndSuppressedExceptionsAreSearchedToo() {
        SQLException batch = new SQLException("Batch entry 0 was aborted", "22000");
        batch.setNextException(new SQLException("An I/O error occurred while sending to the backend.", "08006"));
        assertTrue(Unreachable.isCause(new IllegalStateException(batch)));
        RuntimeException rollback = new RuntimeException("ARJUNA016053: Could not commit transaction.");
        rollback.addSuppressed(new SQLException("the database system is shutting down", "57P03"));
        assertTrue(Unreachable.isCause(rollback));
    }

    @Test
    void theBrokerOutOfReach() {
        var noRoute = new MQClientException(ClientErrorCode.NOT_FOUND_TOPIC_EXCEPTION, "No route info of this topic: t");
        assertEquals(Optional.of(Dependency.BROKER), Unreachable.dependencyOf(new MessagingException("Sending failed", noRoute)));
        var connect = new MQClientException("Send [2] times, still failed", new RemotingConnectException("127.0.0.1:10911"));
        assertEquals(Optional.of(Dependency.BROKER), Unreachable.dependencyOf(new MessagingException("Sending failed", connect)));
    }

    @Test
    void otherFailuresAreNot() {
        assertFalse(Unreachable.isCause(new RuntimeException(new SQLException("duplicate key value", "23505"))));
        assertFalse(Unreachable.isCause(new SQLException("no state")));
        assertFalse(Unreachable.isCause(new IllegalStateException("a bug")));
        assertFalse(Unreachable.isCause(new MessagingException("too large",
                new MQClientException(13, "the message body size over max value"))));
    }

    @Test
    void aCycleInTheCausesEnds() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b);
        assertFalse(Unreachable.isCause(a));
    }

    @Test
    void theAnswerIs503ServiceUnavailableWithRetryAfter() {
        ProblemException p = Unreachable.problem(Dependency.DATABASE);
        assertEquals(503, p.status());
        assertEquals("service-unavailable", p.type());
        assertEquals(Unreachable.RETRY_AFTER_SECONDS, p.retryAfterSeconds());
        assertEquals("urn:roost:problem:service-unavailable", p.toProblem().type());
    }
}
