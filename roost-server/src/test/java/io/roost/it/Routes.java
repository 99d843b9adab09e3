package io.roost.it;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

/**
 * Device routes and nodes arranged or checked behind the API: a route to a connection its node does
 * not have (a crash's leftover), a node that stopped heartbeating.
 */
public final class Routes {

    private Routes() {
    }

    /** Makes {@code uid}'s android device look online on node {@code nodeId} through a connection no node has. */
    public static void ghost(String uid, int nodeId, String connectionId) throws SQLException {
        ghost(uid, nodeId, "android", connectionId);
    }

    /** The same for a device of {@code deviceType}, logged in now. */
    public static void ghost(String uid, int nodeId, String deviceType, String connectionId) throws SQLException {
        update("""
                INSERT INTO presence_device_route (uid, device_type, session_key, node_id, connection_id, device_id, epoch)
                VALUES (?, ?, '', ?, ?, 'gone-' || ?, 1)""", Long.parseLong(uid), deviceType, nodeId, connectionId, deviceType);
    }

    /** The routes' devices heartbeat now (a ghost route that stays silent expires after the suite's heartbeat timeout). */
    public static void heartbeat(String... connectionIds) throws SQLException {
        update("UPDATE presence_device_route SET last_heartbeat_at = now() WHERE connection_id = ANY (?)", (Object) connectionIds);
    }

    /**
     * Registers node {@code nodeId} as if it last heartbeated {@code silentFor} ago (no process
     * runs it): a node is lost once that passes 30 s, and the live nodes' expiry takes its routes.
     */
    public static void node(int nodeId, Duration silentFor) throws SQLException {
        try (Connection c = Database.connect()) {
            node(c, nodeId, silentFor);
        }
    }

    /** {@link #node(int, Duration)} on this connection (an in-container test's, from the server's data source). */
    public static void node(Connection c, int nodeId, Duration silentFor) throws SQLException {
        Database.execute(c, """
                INSERT INTO presence_node (node_id, address, started_at, heartbeat_at)
                VALUES (?, 'nobody:8080', now() - interval '1 hour', now() - make_interval(secs => ?))
                ON CONFLICT (node_id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at""", nodeId, silentFor.toMillis() / 1000.0);
    }

    private static void update(String sql, Object... parameters) throws SQLException {
        try (Connection c = Database.connect()) {
            for (int i = 0; i < parameters.length; i++) {
                if (parameters[i] instanceof String[] texts) {
                    parameters[i] = c.createArrayOf("varchar", texts);
                }
            }
            Database.execute(c, sql, parameters);
        }
    }

    public static boolean exists(String connectionId) throws SQLException {
        try (Connection c = Database.connect();
             PreparedStatement ps = c.prepareStatement("SELECT 1 FROM presence_device_route WHERE connection_id = ?")) {
            ps.setString(1, connectionId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }
}
