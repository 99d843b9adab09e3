package io.roost.social;

import java.util.List;

/**
 * A contact's presence as the caller may see it, in the fields of the {@code presence} frame: a
 * client shows it, then applies only frames with a greater {@code version}. A contact who hides
 * their presence from the caller shows offline, at version 0 (no frame about them comes either).
 */
public record ContactPresenceView(String uid, boolean online, List<Device> devices, long version) {

    public record Device(String deviceType, String deviceId) {
    }
}
