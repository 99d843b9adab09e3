package io.roost.presence.session;

import java.util.List;

/**
 * A user's aggregate presence changed: the first device came online, the last went offline, or a
 * device type joined or left. Fired in the transaction that changed the routes, with a version
 * that grows per user; observers act after commit.
 */
public record PresenceChanged(long uid, boolean online, List<Device> devices, long version) {

    public record Device(String deviceType, String deviceId) {
    }
}
