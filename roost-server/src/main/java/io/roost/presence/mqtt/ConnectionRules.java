package io.roost.presence.mqtt;

import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;

/**
 * When is an MQTT client online? Stated in plain Java as the specification and test oracle; the
 * database applies the same rules (MqttStore).
 *
 * <ol>
 *   <li>A connection (clientId, channelId) has exactly one connect and one close. It is <b>open</b>
 *       if its connect has been seen and neither disconnect nor tcpclean has. Facts only accumulate
 *       (a close that arrives before its connect is remembered, and the late connect does not
 *       reopen it), so the order and the number of deliveries do not matter.</li>
 *   <li>MQTT allows one live connection per client id, and a new connection takes over the old
 *       one. So a connection is <b>superseded</b> when another connection of the same client has a
 *       <b>connect</b> with a later time; on equal times the larger channelId counts as newer. Only
 *       connects supersede: under takeover the old connection's tcpclean is stamped just after the
 *       new connect, and a close only ever closes its own channelId.</li>
 *   <li>A client is <b>online</b> iff it has an open connection that is not superseded, i.e. iff
 *       its newest connect (by time, then channelId) belongs to an open connection. A lost tcpclean
 *       therefore cannot keep a client online for ever: its next connect supersedes it.</li>
 * </ol>
 */
public final class ConnectionRules {

    /** What is known of one connection. */
    public record Connection(String channelId, Long connectTime, Long disconnectTime, Long tcpcleanTime) {

        public static Connection empty(String channelId) {
            return new Connection(channelId, null, null, null);
        }

        /** Adds one event; commutative and idempotent (the first fact of each kind stays). */
        public Connection with(MqttStatusEvent.Type type, long time) {
            return switch (type) {
                case CONNECT -> new Connection(channelId, connectTime != null ? connectTime : time, disconnectTime, tcpcleanTime);
                case DISCONNECT -> new Connection(channelId, connectTime, disconnectTime != null ? disconnectTime : time, tcpcleanTime);
                case TCPCLEAN -> new Connection(channelId, connectTime, disconnectTime, tcpcleanTime != null ? tcpcleanTime : time);
            };
        }

        public boolean closed() {
            return disconnectTime != null || tcpcleanTime != null;
        }

        public boolean open() {
            return connectTime != null && !closed();
        }
    }

    /** Newer connect first: later time, then larger channelId. */
    public static final Comparator<Connection> NEWEST_CONNECT_FIRST = Comparator
            .comparing(Connection::connectTime, Comparator.reverseOrder())
            .thenComparing(Connection::channelId, Comparator.reverseOrder());

    private ConnectionRules() {
    }

    public static Optional<Connection> newestConnect(Collection<Connection> connections) {
        return connections.stream().filter(c -> c.connectTime() != null).min(NEWEST_CONNECT_FIRST);
    }

    public static boolean superseded(Connection c, Collection<Connection> all) {
        return c.connectTime() != null && newestConnect(all).map(n -> n != c && !n.channelId().equals(c.channelId()))
                .orElse(false);
    }

    public static boolean online(Collection<Connection> connections) {
        return newestConnect(connections).map(Connection::open).orElse(false);
    }
}
