package io.roost.group;

import java.time.OffsetDateTime;

/** An invite link to a group (its token is never stored, only the token's hash). */
public record InviteLink(long id, long groupId, long createdBy, OffsetDateTime createdAt, OffsetDateTime expiresAt,
                         OffsetDateTime revokedAt) {
}
