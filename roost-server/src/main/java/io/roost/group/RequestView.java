package io.roost.group;

import java.time.OffsetDateTime;

/** A join request or an invitation, as REST and {@code groupOp} frames show it: ids as strings (JS-safe). */
public record RequestView(String id, String groupId, String uid, String kind, String inviterId, String message,
                          String status, String answeredBy, String note, OffsetDateTime createdAt) {

    public static RequestView of(GroupService.Request r) {
        return new RequestView(Long.toString(r.id()), Long.toString(r.groupId()), Long.toString(r.uid()), r.kind(),
                r.inviterId() == null ? null : r.inviterId().toString(), r.message(), r.status(),
                r.answeredBy() == null ? null : r.answeredBy().toString(), r.note(), r.createdAt());
    }
}
