package io.roost.room;

import java.time.OffsetDateTime;

/** A live session of a room; {@code online}/{@code onlineFans} are live sums while open and the final values once closed. */
public record RoomSession(long id, String roomId, long anchorId, String title, OffsetDateTime openedAt,
                          OffsetDateTime anchorHeartbeatAt, OffsetDateTime closedAt, String closeReason, int online,
                          int onlineFans, int peakOnline, boolean cleared) {

    public boolean open() {
        return closedAt == null;
    }
}
