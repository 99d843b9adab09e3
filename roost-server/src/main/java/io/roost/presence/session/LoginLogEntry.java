package io.roost.presence.session;

import java.time.OffsetDateTime;

/** One line of a user's login log: a login, logout, kick or timeout, on which node and why. */
public record LoginLogEntry(String event, String deviceType, String deviceId, int node, String reason,
                            OffsetDateTime at) {
}
