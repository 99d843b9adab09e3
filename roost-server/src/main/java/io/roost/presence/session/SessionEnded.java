package io.roost.presence.session;

/**
 * A device session that a connection held has ended without that connection asking: displaced by
 * a newer login (kick-old), expired (no heartbeat), ended by an operator, found stale by a push
 * (unreachable) or silent to pushed messages (ack timeout). Fired after commit;
 * the gateway of the node that holds the connection closes it with a kick frame.
 */
public record SessionEnded(int nodeId, String connectionId, long uid, String deviceType, String reason) {

    public static final String REPLACED = "replaced_by_new_login";
    public static final String TIMEOUT = "heartbeat_timeout";
    public static final String NODE_LOST = "node_lost";
    public static final String KICKED_BY_ADMIN = "kicked_by_admin";
    /** A push found no such connection on the node the route names: the route was stale. */
    public static final String UNREACHABLE = "unreachable";
    /** The device did not acknowledge a pushed message, even after it was pushed again. */
    public static final String ACK_TIMEOUT = "ack_timeout";
    /** Its node is being taken out of service: the device connects again, to another node. */
    public static final String SERVER_SHUTDOWN = "server_shutdown";
}
