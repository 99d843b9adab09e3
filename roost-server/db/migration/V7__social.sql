-- Roost V7: the social graph (seed 001 §2.2). One edge table serves both modes: in follow mode an
-- edge is a follow; in approval mode an accepted request writes both edges. Friends = mutual edges.

CREATE TABLE social_follow (
    follower_id  BIGINT       NOT NULL,
    followee_id  BIGINT       NOT NULL,
    created_at   TIMESTAMPTZ  NOT NULL DEFAULT now(),
    PRIMARY KEY (follower_id, followee_id),           -- "is A a follower of B": one index probe
    CHECK (follower_id <> followee_id)
);
CREATE INDEX social_follow_followee_idx ON social_follow (followee_id, follower_id);

-- Counters kept in the same transaction as the edge change, only when a row really changed.
CREATE TABLE social_counts (
    uid        BIGINT  PRIMARY KEY,
    followers  BIGINT  NOT NULL DEFAULT 0 CHECK (followers >= 0),
    following  BIGINT  NOT NULL DEFAULT 0 CHECK (following >= 0)
);

-- blocker no longer receives messages or friend requests from blocked: a primary-key probe per check.
CREATE TABLE social_block (
    blocker_id  BIGINT       NOT NULL,
    blocked_id  BIGINT       NOT NULL,
    created_at  TIMESTAMPTZ  NOT NULL DEFAULT now(),
    PRIMARY KEY (blocker_id, blocked_id),
    CHECK (blocker_id <> blocked_id)
);

-- What owner allows peer: hide my presence from them, mute their messages.
CREATE TABLE social_permission (
    owner_id       BIGINT   NOT NULL,
    peer_id        BIGINT   NOT NULL,
    hide_presence  BOOLEAN  NOT NULL DEFAULT false,
    muted          BOOLEAN  NOT NULL DEFAULT false,
    PRIMARY KEY (owner_id, peer_id)
);

-- Approval mode: at most one pending request per ordered pair (the partial unique index).
CREATE TABLE social_friend_request (
    id           BIGINT       PRIMARY KEY,
    from_id      BIGINT       NOT NULL,
    to_id        BIGINT       NOT NULL,
    message      VARCHAR(500),
    status       VARCHAR(10)  NOT NULL DEFAULT 'PENDING'
                 CHECK (status IN ('PENDING', 'ACCEPTED', 'REJECTED', 'IGNORED', 'EXPIRED', 'CANCELLED')),
    created_at   TIMESTAMPTZ  NOT NULL DEFAULT now(),
    expires_at   TIMESTAMPTZ  NOT NULL,
    answered_at  TIMESTAMPTZ,
    note         VARCHAR(500),
    CHECK (from_id <> to_id)
);
CREATE UNIQUE INDEX social_friend_request_pending_uq ON social_friend_request (from_id, to_id) WHERE status = 'PENDING';
CREATE INDEX social_friend_request_to_idx ON social_friend_request (to_id, status, id);
CREATE INDEX social_friend_request_from_idx ON social_friend_request (from_id, status, id);
