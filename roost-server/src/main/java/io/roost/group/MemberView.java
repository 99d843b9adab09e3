package io.roost.group;

import java.time.OffsetDateTime;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** A member of a group with its role (O, A, W or R), as REST, the admin API and {@code groupOp} frames show it. */
public record MemberView(String uid, String role, String nick, String avatarUrl, OffsetDateTime joinedAt,
                         @Schema(description = "muted by an admin or an operator now: it reads but may not send") boolean muted,
                         @Schema(description = "until when, if muted for a time (null: not muted, or for good)") OffsetDateTime mutedUntil) {

    public static MemberView of(GroupService.Member m) {
        boolean forGood = OffsetDateTime.MAX.equals(m.mutedUntil());
        return new MemberView(Long.toString(m.uid()), m.role().name(), m.nick(), m.avatarUrl(), m.joinedAt(), m.mutedUntil() != null,
                forGood ? null : m.mutedUntil());
    }
}
