package io.roost.group;

import java.time.OffsetDateTime;

/** A new invite link as its creator sees it, once: the only time the token is shown. Ids as strings (JS-safe). */
public record InviteLinkView(String id, String groupId, String token, String createdBy, OffsetDateTime createdAt,
                             OffsetDateTime expiresAt) {

    public static InviteLinkView of(InviteLink link, String token) {
        return new InviteLinkView(Long.toString(link.id()), Long.toString(link.groupId()), token, Long.toString(link.createdBy()),
                link.createdAt(), link.expiresAt());
    }
}
