package io.roost.client.device;

import java.util.List;

/** A contact's online state changed; frames not newer ({@code version}) than the last one of that user are dropped. */
public record Presence(String uid, boolean online, List<Device> devices, long version) {

    /** One of the contact's online devices. */
    public record Device(String deviceType, String deviceId) {
    }
}
