package io.roost.room;

public record OpenRoom(String roomId, long sessionId, long anchorId, int online, int onlineFans) {
}
