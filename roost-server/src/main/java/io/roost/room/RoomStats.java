package io.roost.room;

/** A room's open session and how many viewers, and fans among them, are online in it. */
public record RoomStats(long sessionId, long anchorId, int online, int onlineFans) {
}
