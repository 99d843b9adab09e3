package io.roost.room;

public record LoyalFan(long uid, int sessions, long onlineMs) {
}
