package io.roost.room;

/** Open sessions, and viewers and fans online in them all. */
public record RoomTotals(long openSessions, long viewers, long fans) {
}
