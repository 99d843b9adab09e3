package io.roost.presence.session;

import java.time.OffsetDateTime;

/**
 * One live device session in the route table: which node and connection hold the user's device of
 * this type now, and the login epoch that a later login or kick must beat.
 */
public record DeviceRoute(long uid, String deviceType, String sessionKey, int nodeId, String connectionId, String deviceId,
                          long epoch, OffsetDateTime loginAt, OffsetDateTime lastHeartbeatAt) {
}
