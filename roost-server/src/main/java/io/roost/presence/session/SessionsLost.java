package io.roost.presence.session;

import java.time.OffsetDateTime;
import java.util.List;

/**
 * Device sessions the server ended without their node's word: their node stopped (it crashed, or
 * lost the database) and another node's expiry removed their routes once the node's heartbeat was
 * 30 s old, or the node itself did as it started again; or they fell silent (no heartbeat within
 * the timeout), which is also how a stopped node's devices end when the heartbeat timeout is
 * shorter than the node's. Fired in that transaction, so an observer's writes commit with the
 * removal or not at all. What a stopped node held in memory for these devices is gone with it: the
 * pushes it was waiting to see acknowledged, and what was forwarded to it after it stopped. (A
 * live node whose device fell silent gets the kick and settles those itself as well.)
 */
public record SessionsLost(List<Lost> sessions) {

    /** One lost session; {@code nodeLastHeartbeat}: when its node last heartbeated (null: it never registered). */
    public record Lost(DeviceRoute route, OffsetDateTime nodeLastHeartbeat) {
    }
}
