package io.roost.group;

import java.time.OffsetDateTime;

/** A member of a group with its role (O, A, W or R), as REST, the admin API and {@code groupOp} frames show it. */
public record MemberView(String uid, String role, String nick, String avatarUrl, OffsetDateTime joinedAt) {

    public static MemberView of(GroupService.Member m) {
        return new MemberView(Long.toString(m.uid()), m.role().name(), m.nick(), m.avatarUrl(), m.joinedAt());
    }
}
