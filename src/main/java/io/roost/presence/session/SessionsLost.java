package io.roost.presence.session;

import java.time.OffsetDateTime;
import java.util.List;

/**
 * Device sessions whose node stopped (it crashed, or lost the database): another node's expiry
 * removed their routes once the node's heartbeat was 30 s old, or the node itself did as it started
 * again. Fired in that transaction, so an observer's writes commit with the removal or not at all.
 * What the lost node held in memory for these devices is gone with it: the pushes it was waiting
 * to see acknowledged, and what was forwarded to it after it stopped.
 */
public record SessionsLost(List<Lost> sessions) {

    /** One lost session; {@code nodeLastHeartbeat}: when its node last heartbeated (null: it never registered). */
    public record Lost(DeviceRoute route, OffsetDateTime nodeLastHeartbeat) {
    }
}
