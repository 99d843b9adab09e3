package io.roost.social;

import java.time.OffsetDateTime;

/** A friend request as REST and {@code friendOp} frames show it: ids as strings (JS-safe). */
public record FriendRequestView(String id, String from, String to, String message, String status,
                                OffsetDateTime createdAt, OffsetDateTime expiresAt, OffsetDateTime answeredAt, String note) {

    public static FriendRequestView of(SocialGraph.FriendRequest r) {
        return new FriendRequestView(Long.toString(r.id()), Long.toString(r.fromId()), Long.toString(r.toId()),
                r.message(), r.status(), r.createdAt(), r.expiresAt(), r.answeredAt(), r.note());
    }
}
