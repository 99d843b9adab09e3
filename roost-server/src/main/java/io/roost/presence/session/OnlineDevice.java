package io.roost.presence.session;

import java.time.OffsetDateTime;

/** A user's device that is online now, as operators and back ends see it: its node and its last heartbeat. */
public record OnlineDevice(String deviceType, String deviceId, int node, OffsetDateTime since, OffsetDateTime lastHeartbeat) {

    public static OnlineDevice of(DeviceRoute route) {
        return new OnlineDevice(route.deviceType(), route.deviceId(), route.nodeId(), route.loginAt(),
                route.lastHeartbeatAt());
    }
}
