package io.roost.client.device;

/** A live session: the login's answer ({@code uid}, {@code connectionId}, {@code epoch}) and the hello's heartbeat interval and social mode. */
public record Session(String uid, String connectionId, long epoch, int heartbeatIntervalSeconds, String socialMode) {
}
