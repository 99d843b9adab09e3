package io.roost.platform.problem;

import io.roost.platform.datasource.SqlStates;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Optional;
import java.util.Set;
import org.apache.rocketmq.client.common.ClientErrorCode;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.remoting.exception.RemotingConnectException;
import org.apache.rocketmq.remoting.exception.RemotingSendRequestException;
import org.apache.rocketmq.remoting.exception.RemotingTimeoutException;
import org.apache.rocketmq.remoting.exception.RemotingTooMuchRequestException;
import org.apache.rocketmq.remoting.protocol.ResponseCode;

/**
 * Recognises a failure caused by the database or the message broker being out of reach, and says
 * what the caller is told then: 503, problem type {@value #TYPE}, {@code Retry-After}
 * {@value #RETRY_AFTER_SECONDS} s (on the device WebSocket: error {@code server-busy}, close 1013).
 * The one place that decides it, for the REST layer, the authentication filter, the Agora webhook
 * and the WebSocket alike.
 *
 * <p>Whatever wraps the failure (EJB, JTA, Hibernate, our own IllegalStateExceptions), it is
 * recognised by what lies underneath: the whole chain of causes, suppressed exceptions and
 * {@link SQLException#getNextException() next exceptions} is searched.
 */
public final class Unreachable {

    /** The problem type (slug) of every such answer. */
    public static final String TYPE = "service-unavailable";

    /**
     * {@code Retry-After} of every such answer. Short: the pool reconnects within a fraction of a
     * second of the dependency's return, so a client waits at most this much longer than needed.
     */
    public static final long RETRY_AFTER_SECONDS = 5;

    /** What is out of reach. */
    public enum Dependency {
        DATABASE("the database"),
        BROKER("the message broker");

        private final String description;

        Dependency(String description) {
            this.description = description;
        }
    }

    /** More links than any real chain has; a guard against cycles the identity set does not see. */
    private static final int MAX_LINKS = 100;

    private Unreachable() {
    }

    /** Which dependency could not be reached, if that is why {@code failure} happened. */
    public static Optional<Dependency> dependencyOf(Throwable failure) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Throwable> todo = new ArrayDeque<>();
        todo.add(failure);
        while (!todo.isEmpty() && seen.size() < MAX_LINKS) {
            Throwable t = todo.poll();
            if (!seen.add(t)) {
                continue;
            }
            Dependency d = unreachable(t);
            if (d != null) {
                return Optional.of(d);
            }
            if (t.getCause() != null) {
                todo.add(t.getCause());
            }
            if (t instanceof SQLException sql && sql.getNextException() != null) {
                todo.add(sql.getNextException());
            }
            for (Throwable s : t.getSuppressed()) {
                todo.add(s);
            }
        }
        return Optional.empty();
    }

    public static boolean isCause(Throwable failure) {
        return dependencyOf(failure).isPresent();
    }

    /** The 503 for a failure caused by {@code dependency}: type {@value #TYPE}, with Retry-After. */
    public static ProblemException problem(Dependency dependency) {
        return ProblemException.unavailable(TYPE, "This cannot be done now: " + dependency.description
                + " is out of reach. Try again in " + RETRY_AFTER_SECONDS + " s.", RETRY_AFTER_SECONDS);
    }

    /** The 503 for {@code failure} if an unreachable dependency caused it. */
    public static Optional<ProblemException> problemFor(Throwable failure) {
        return dependencyOf(failure).map(Unreachable::problem);
    }

    /** This one exception, not its causes: does it say that the database or the broker is out of reach? */
    private static Dependency unreachable(Throwable t) {
        if (t instanceof SQLTransientConnectionException || t instanceof SQLNonTransientConnectionException
                || t instanceof SQLException sql && SqlStates.unreachable(sql.getSQLState())
                // IronJacamar's pool (no connection to be had: none could be made, or none came free in
                // time) and Hibernate's connection failure; by name, since they come from server modules.
                || isA(t, "jakarta.resource.ResourceException")
                || isA(t, "org.hibernate.exception.JDBCConnectionException")) {
            return Dependency.DATABASE;
        }
        if (t instanceof RemotingConnectException || t instanceof RemotingSendRequestException
                || t instanceof RemotingTimeoutException || t instanceof RemotingTooMuchRequestException
                || t instanceof MQClientException client && unreachableBroker(client.getResponseCode())
                || t instanceof MQBrokerException broker && (broker.getResponseCode() == ResponseCode.SYSTEM_BUSY
                        || broker.getResponseCode() == ResponseCode.SERVICE_NOT_AVAILABLE)) {
            return Dependency.BROKER;
        }
        return null;
    }

    /** No name server, no route to the topic, no broker to connect to, or it did not answer in time. */
    private static boolean unreachableBroker(int clientErrorCode) {
        return switch (clientErrorCode) {
            case ClientErrorCode.CONNECT_BROKER_EXCEPTION, ClientErrorCode.ACCESS_BROKER_TIMEOUT,
                 ClientErrorCode.BROKER_NOT_EXIST_EXCEPTION, ClientErrorCode.NO_NAME_SERVER_EXCEPTION,
                 ClientErrorCode.NOT_FOUND_TOPIC_EXCEPTION, ClientErrorCode.REQUEST_TIMEOUT_EXCEPTION -> true;
            default -> false;
        };
    }

    private static boolean isA(Throwable t, String className) {
        for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass()) {
            if (c.getName().equals(className)) {
                return true;
            }
        }
        return false;
    }
}
