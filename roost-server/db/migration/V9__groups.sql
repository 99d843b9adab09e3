-- Roost V9: groups and channels with roles (seed 001 §2.3). The group row is the lock every
-- change takes first, so concurrent admin actions serialize per group and a group always has
-- exactly one owner; member rows carry the role.

CREATE TABLE grp (
    id            BIGINT        PRIMARY KEY,
    name          VARCHAR(100)  NOT NULL,
    notice        VARCHAR(2000),
    icon_url      VARCHAR(1024),
    tags          VARCHAR(64)[] NOT NULL DEFAULT '{}',
    group_type    VARCHAR(8)    NOT NULL CHECK (group_type IN ('chat', 'channel')),
    join_policy   VARCHAR(12)   NOT NULL DEFAULT 'open' CHECK (join_policy IN ('open', 'approval', 'invite-only')),
    visibility    VARCHAR(8)    NOT NULL DEFAULT 'public' CHECK (visibility IN ('public', 'hidden')),
    owner_id      BIGINT        NOT NULL,
    status        VARCHAR(10)   NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'DISSOLVED')),
    member_count  INTEGER       NOT NULL DEFAULT 0 CHECK (member_count >= 0),
    sample_key    DOUBLE PRECISION NOT NULL DEFAULT random(),   -- random sample without ORDER BY random()
    version       BIGINT        NOT NULL DEFAULT 0,
    created_at    TIMESTAMPTZ   NOT NULL DEFAULT now(),
    updated_at    TIMESTAMPTZ   NOT NULL DEFAULT now()
);
-- Search covers active public groups only: by name prefix / similarity, by tag, or a random sample.
CREATE INDEX grp_name_prefix_idx ON grp (lower(name) text_pattern_ops, id) WHERE status = 'ACTIVE' AND visibility = 'public';
CREATE INDEX grp_name_trgm_idx ON grp USING gin (lower(name) gin_trgm_ops) WHERE status = 'ACTIVE' AND visibility = 'public';
CREATE INDEX grp_tags_idx ON grp USING gin (tags) WHERE status = 'ACTIVE' AND visibility = 'public';
CREATE INDEX grp_sample_idx ON grp (sample_key) WHERE status = 'ACTIVE' AND visibility = 'public';

CREATE TABLE group_member (
    group_id    BIGINT        NOT NULL REFERENCES grp (id),
    uid         BIGINT        NOT NULL,
    role        CHAR(1)       NOT NULL CHECK (role IN ('O', 'A', 'W', 'R')),
    nick        VARCHAR(64),
    avatar_url  VARCHAR(1024),
    joined_at   TIMESTAMPTZ   NOT NULL DEFAULT now(),
    version     BIGINT        NOT NULL DEFAULT 0,
    PRIMARY KEY (group_id, uid)
);
-- Seed 001's ugroup table: the groups of a user in one index range.
CREATE INDEX group_member_uid_idx ON group_member (uid, group_id);
-- Exactly one owner per group, whatever races.
CREATE UNIQUE INDEX group_member_one_owner_uq ON group_member (group_id) WHERE role = 'O';

-- Join requests (a user asks) and invitations (a member invites); one pending per (group, user, kind).
CREATE TABLE group_request (
    id           BIGINT        PRIMARY KEY,
    group_id     BIGINT        NOT NULL REFERENCES grp (id),
    uid          BIGINT        NOT NULL,                 -- who would join
    kind         VARCHAR(6)    NOT NULL CHECK (kind IN ('join', 'invite')),
    inviter_id   BIGINT,
    message      VARCHAR(500),
    status       VARCHAR(9)    NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'ACCEPTED', 'REJECTED', 'CANCELLED')),
    answered_by  BIGINT,
    note         VARCHAR(500),
    created_at   TIMESTAMPTZ   NOT NULL DEFAULT now(),
    answered_at  TIMESTAMPTZ
);
CREATE UNIQUE INDEX group_request_pending_uq ON group_request (group_id, uid, kind) WHERE status = 'PENDING';
CREATE INDEX group_request_group_idx ON group_request (group_id, status, id);

-- Audit log of every group change (also published to roost-group-events through the outbox).
CREATE TABLE group_event (
    id          BIGINT        PRIMARY KEY,
    group_id    BIGINT        NOT NULL,
    actor_id    BIGINT        NOT NULL,
    event_type  VARCHAR(24)   NOT NULL,
    target_id   BIGINT,
    detail      VARCHAR(2000),
    at          TIMESTAMPTZ   NOT NULL DEFAULT now()
);
CREATE INDEX group_event_group_idx ON group_event (group_id, id);
