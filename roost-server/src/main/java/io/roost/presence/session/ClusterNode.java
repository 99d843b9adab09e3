package io.roost.presence.session;

import java.time.OffsetDateTime;

/**
 * A node in the node table: its {@code ROOST_NODE_ID}, address (host/pid), start and last heartbeat,
 * the device connections routed to it, and whether it heartbeated within the node timeout (a node
 * that did not has its routes expired by the others).
 */
public record ClusterNode(int id, String address, OffsetDateTime startedAt, OffsetDateTime lastHeartbeat, long connections,
                          boolean alive) {
}
