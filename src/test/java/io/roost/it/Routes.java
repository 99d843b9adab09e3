package io.roost.it;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Device routes arranged or checked behind the API: a route to a connection its node does not have (a crash's leftover). */
public final class Routes {

    private Routes() {
    }

    /** Makes {@code uid}'s android device look online on node {@code nodeId} through a connection no node has. */
    public static void ghost(String uid, int nodeId, String connectionId) throws SQLException {
        try (Connection c = Database.connect(); PreparedStatement ps = c.prepareStatement("""
                INSERT INTO presence_device_route (uid, device_type, session_key, node_id, connection_id, device_id, epoch)
                VALUES (?, 'android', '', ?, ?, 'gone-phone', 1)""")) {
            ps.setLong(1, Long.parseLong(uid));
            ps.setInt(2, nodeId);
            ps.setString(3, connectionId);
            ps.executeUpdate();
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
