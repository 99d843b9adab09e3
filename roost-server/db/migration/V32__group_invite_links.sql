-- Roost V40: invite links to a group. A group admin creates one with an expiry; whoever holds its
-- token joins the group (a hidden or invite-only one too: the link is the admin's invitation) until
-- the link expires or an admin revokes it. Only the token's SHA-256 is stored: the token itself is
-- shown once, to the admin who created it. (V40, not the next free number, so that it cannot
-- collide with migrations written meanwhile in other branches.)

CREATE TABLE group_invite_link (
    id          BIGINT       PRIMARY KEY,
    group_id    BIGINT       NOT NULL REFERENCES grp (id),
    token_hash  BYTEA        NOT NULL UNIQUE,
    created_by  BIGINT       NOT NULL,
    created_at  TIMESTAMPTZ  NOT NULL DEFAULT now(),
    expires_at  TIMESTAMPTZ  NOT NULL,
    revoked_at  TIMESTAMPTZ,
    revoked_by  BIGINT
);
CREATE INDEX group_invite_link_group_idx ON group_invite_link (group_id, id);
