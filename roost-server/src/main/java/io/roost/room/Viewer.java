package io.roost.room;

import java.time.OffsetDateTime;

/** One viewer's record in one session; {@code onlineMs} includes the current stay. */
public record Viewer(long sessionId, long uid, boolean online, boolean fan, OffsetDateTime enteredAt,
                     OffsetDateTime lastHeartbeatAt, OffsetDateTime firstEnteredAt, OffsetDateTime lastLeftAt,
                     String leftBy, long onlineMs, int entries) {
}
