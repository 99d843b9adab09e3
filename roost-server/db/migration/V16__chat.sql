-- Roost V16: one-to-one chat by write diffusion (docs/architecture.md, "chat"). A message is stored
-- once per participant (the sender's and the recipient's timeline), with both sides' conversation
-- rows, in one transaction. Lock order of a send: chat_send key → chat_pair → chat_user (uid order)
-- → chat_conversation ((owner_uid, peer_uid) order).

-- The conversation's single sequence: both copies of a message carry the same seq. Allocated by an
-- upsert in the send transaction, so a rollback undoes it (gap-free) and the row lock serialises
-- the senders of one conversation (strictly increasing).
CREATE TABLE chat_pair (
    low_uid     BIGINT       NOT NULL,
    high_uid    BIGINT       NOT NULL,
    last_seq    BIGINT       NOT NULL DEFAULT 0,
    created_at  TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ  NOT NULL DEFAULT now(),
    PRIMARY KEY (low_uid, high_uid),
    CHECK (low_uid < high_uid)
);

-- A user's own counter of conversation changes: every change of one of the user's conversation
-- rows takes the next value, so "what changed since version V" is exact across nodes.
CREATE TABLE chat_user (
    uid           BIGINT  PRIMARY KEY,
    sync_version  BIGINT  NOT NULL DEFAULT 0
);

-- The per-owner timeline, hash-partitioned by owner: one user's messages live in one partition,
-- clustered by (owner_uid, peer_uid, seq). Partitions are split later by attaching 32, 64, ...
-- (see docs/architecture.md).
CREATE TABLE chat_timeline (
    owner_uid          BIGINT       NOT NULL,
    peer_uid           BIGINT       NOT NULL,
    seq                BIGINT       NOT NULL,
    msg_id             BIGINT       NOT NULL,
    sender_uid         BIGINT       NOT NULL,          -- 0: the system
    send_id            VARCHAR(64)  NOT NULL,
    msg_type           VARCHAR(8)   NOT NULL CHECK (msg_type IN ('text', 'image', 'file', 'voice', 'location', 'custom', 'system')),
    body               JSONB        NOT NULL,          -- {"text"} or {"media":{url,size,mime,...}} or {"location":{...}}
    quote_msg_id       BIGINT,
    priority           SMALLINT     NOT NULL DEFAULT 0,
    created_at         TIMESTAMPTZ  NOT NULL DEFAULT now(),
    deleted_for_owner  BOOLEAN      NOT NULL DEFAULT false,   -- a tombstone: kept, shown as deleted
    recalled           BOOLEAN      NOT NULL DEFAULT false,
    PRIMARY KEY (owner_uid, peer_uid, seq)
) PARTITION BY HASH (owner_uid);

CREATE TABLE chat_timeline_p00 PARTITION OF chat_timeline FOR VALUES WITH (MODULUS 16, REMAINDER 0);
CREATE TABLE chat_timeline_p01 PARTITION OF chat_timeline FOR VALUES WITH (MODULUS 16, REMAINDER 1);
CREATE TABLE chat_timeline_p02 PARTITION OF chat_timeline FOR VALUES WITH (MODULUS 16, REMAINDER 2);
CREATE TABLE chat_timeline_p03 PARTITION OF chat_timeline FOR VALUES WITH (MODULUS 16, REMAINDER 3);
CREATE TABLE chat_timeline_p04 PARTITION OF chat_timeline FOR VALUES WITH (MODULUS 16, REMAINDER 4);
CREATE TABLE chat_timeline_p05 PARTITION OF chat_timeline FOR VALUES WITH (MODULUS 16, REMAINDER 5);
CREATE TABLE chat_timeline_p06 PARTITION OF chat_timeline FOR VALUES WITH (MODULUS 16, REMAINDER 6);
CREATE TABLE chat_timeline_p07 PARTITION OF chat_timeline FOR VALUES WITH (MODULUS 16, REMAINDER 7);
CREATE TABLE chat_timeline_p08 PARTITION OF chat_timeline FOR VALUES WITH (MODULUS 16, REMAINDER 8);
CREATE TABLE chat_timeline_p09 PARTITION OF chat_timeline FOR VALUES WITH (MODULUS 16, REMAINDER 9);
CREATE TABLE chat_timeline_p10 PARTITION OF chat_timeline FOR VALUES WITH (MODULUS 16, REMAINDER 10);
CREATE TABLE chat_timeline_p11 PARTITION OF chat_timeline FOR VALUES WITH (MODULUS 16, REMAINDER 11);
CREATE TABLE chat_timeline_p12 PARTITION OF chat_timeline FOR VALUES WITH (MODULUS 16, REMAINDER 12);
CREATE TABLE chat_timeline_p13 PARTITION OF chat_timeline FOR VALUES WITH (MODULUS 16, REMAINDER 13);
CREATE TABLE chat_timeline_p14 PARTITION OF chat_timeline FOR VALUES WITH (MODULUS 16, REMAINDER 14);
CREATE TABLE chat_timeline_p15 PARTITION OF chat_timeline FOR VALUES WITH (MODULUS 16, REMAINDER 15);

-- A message by id within its owner's timeline (quotes, recall, receipts).
CREATE UNIQUE INDEX chat_timeline_msg_idx ON chat_timeline (owner_uid, msg_id);

-- Each side's conversation row: last message, unread count, cursors, and the owner's sync version
-- of its last change.
CREATE TABLE chat_conversation (
    owner_uid        BIGINT        NOT NULL,
    peer_uid         BIGINT        NOT NULL,
    last_seq         BIGINT        NOT NULL DEFAULT 0,
    last_msg_id      BIGINT,
    last_sender_uid  BIGINT,
    last_preview     VARCHAR(200),
    unread           INTEGER       NOT NULL DEFAULT 0 CHECK (unread >= 0),
    read_seq         BIGINT        NOT NULL DEFAULT 0,
    delivered_seq    BIGINT        NOT NULL DEFAULT 0,
    sync_version     BIGINT        NOT NULL,
    updated_at       TIMESTAMPTZ   NOT NULL DEFAULT now(),
    PRIMARY KEY (owner_uid, peer_uid)
);
-- "What changed since version V" for one owner, in version order.
CREATE UNIQUE INDEX chat_conversation_sync_idx ON chat_conversation (owner_uid, sync_version);

-- Idempotent sends: a resend of the same sendId from the same device gets the stored answer.
-- Kept at least ROOST_CHAT_SEND_ID_RETENTION; purged in batches through the created_at index.
CREATE TABLE chat_send (
    sender_uid  BIGINT       NOT NULL,
    device_key  VARCHAR(80)  NOT NULL,
    send_id     VARCHAR(64)  NOT NULL,
    msg_id      BIGINT       NOT NULL,
    peer_uid    BIGINT       NOT NULL,
    seq         BIGINT       NOT NULL DEFAULT 0,      -- set in the same transaction, after the seq is allocated
    body_hash   BYTEA        NOT NULL,
    created_at  TIMESTAMPTZ  NOT NULL DEFAULT now(),
    PRIMARY KEY (sender_uid, device_key, send_id)
);
CREATE INDEX chat_send_created_idx ON chat_send USING brin (created_at);
