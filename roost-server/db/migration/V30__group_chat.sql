-- Roost V30: group chat by read diffusion (docs/architecture.md, "Group chat"). A group message is
-- stored once (group_message), whatever the group's size; each member has one row of its own state
-- (group_chat_member: where its visibility starts and ends, how far it read, whether it muted the
-- group, the last message that mentioned it), written when that state changes, never per message.

-- The group's side of the conversation list and its sequence: a send batch adds its message count
-- to last_seq under this row's lock, so seqs are gap-free and strictly increasing per group, and
-- group changes (which lock grp first, then this row) and sends of one group queue on it.
-- member_epoch moves with every change of who is a member, so a node can tell that its view of
-- the group's online members is older than a message it is about to push.
CREATE TABLE group_chat (
    group_id          BIGINT        PRIMARY KEY,
    last_seq          BIGINT        NOT NULL DEFAULT 0,
    last_msg_id       BIGINT,
    last_sender_uid   BIGINT,
    last_preview      VARCHAR(200),
    mention_all_seq   BIGINT        NOT NULL DEFAULT 0,   -- the last message that mentioned everyone
    member_epoch      BIGINT        NOT NULL DEFAULT 0,
    sync_version      BIGINT        NOT NULL DEFAULT 0,
    updated_at        TIMESTAMPTZ   NOT NULL DEFAULT now()
) WITH (fillfactor = 70);   -- every send rewrites the row: room for HOT updates on its page

-- One row per message per group, hash-partitioned by group: a group's messages are one primary-key
-- range of one partition. Split later as chat_timeline's are (docs/architecture.md).
CREATE TABLE group_message (
    group_id      BIGINT       NOT NULL,
    seq           BIGINT       NOT NULL,
    msg_id        BIGINT       NOT NULL,
    sender_uid    BIGINT       NOT NULL,          -- 0: the system
    send_id       VARCHAR(64)  NOT NULL,
    msg_type      VARCHAR(8)   NOT NULL CHECK (msg_type IN ('text', 'image', 'file', 'voice', 'location', 'custom', 'system')),
    body          JSONB        NOT NULL,
    quote_msg_id  BIGINT,
    priority      SMALLINT     NOT NULL DEFAULT 0,
    mentions      BIGINT[],                       -- the members it mentions (null: none)
    mention_all   BOOLEAN      NOT NULL DEFAULT false,
    created_at    TIMESTAMPTZ  NOT NULL DEFAULT now(),
    recalled      BOOLEAN      NOT NULL DEFAULT false,
    deleted       BOOLEAN      NOT NULL DEFAULT false,   -- deleted for everyone by an owner or admin
    PRIMARY KEY (group_id, seq)
) PARTITION BY HASH (group_id);
CREATE TABLE group_message_p00 PARTITION OF group_message FOR VALUES WITH (MODULUS 16, REMAINDER 0);
CREATE TABLE group_message_p01 PARTITION OF group_message FOR VALUES WITH (MODULUS 16, REMAINDER 1);
CREATE TABLE group_message_p02 PARTITION OF group_message FOR VALUES WITH (MODULUS 16, REMAINDER 2);
CREATE TABLE group_message_p03 PARTITION OF group_message FOR VALUES WITH (MODULUS 16, REMAINDER 3);
CREATE TABLE group_message_p04 PARTITION OF group_message FOR VALUES WITH (MODULUS 16, REMAINDER 4);
CREATE TABLE group_message_p05 PARTITION OF group_message FOR VALUES WITH (MODULUS 16, REMAINDER 5);
CREATE TABLE group_message_p06 PARTITION OF group_message FOR VALUES WITH (MODULUS 16, REMAINDER 6);
CREATE TABLE group_message_p07 PARTITION OF group_message FOR VALUES WITH (MODULUS 16, REMAINDER 7);
CREATE TABLE group_message_p08 PARTITION OF group_message FOR VALUES WITH (MODULUS 16, REMAINDER 8);
CREATE TABLE group_message_p09 PARTITION OF group_message FOR VALUES WITH (MODULUS 16, REMAINDER 9);
CREATE TABLE group_message_p10 PARTITION OF group_message FOR VALUES WITH (MODULUS 16, REMAINDER 10);
CREATE TABLE group_message_p11 PARTITION OF group_message FOR VALUES WITH (MODULUS 16, REMAINDER 11);
CREATE TABLE group_message_p12 PARTITION OF group_message FOR VALUES WITH (MODULUS 16, REMAINDER 12);
CREATE TABLE group_message_p13 PARTITION OF group_message FOR VALUES WITH (MODULUS 16, REMAINDER 13);
CREATE TABLE group_message_p14 PARTITION OF group_message FOR VALUES WITH (MODULUS 16, REMAINDER 14);
CREATE TABLE group_message_p15 PARTITION OF group_message FOR VALUES WITH (MODULUS 16, REMAINDER 15);
-- A message by id (quotes, the retention purge); led by msg_id, which grows with time, so new
-- entries land on the right-hand edge of the B-tree.
CREATE UNIQUE INDEX group_message_msg_idx ON group_message (msg_id, group_id);
ALTER TABLE group_message
    ALTER COLUMN body SET STATISTICS 0,
    ALTER COLUMN send_id SET STATISTICS 0,
    ALTER COLUMN msg_type SET STATISTICS 0,
    ALTER COLUMN quote_msg_id SET STATISTICS 0,
    ALTER COLUMN priority SET STATISTICS 0,
    ALTER COLUMN mentions SET STATISTICS 0;

-- A member's own state in a group's conversation. Visible messages: joined_seq < seq <= left_seq
-- (left_seq null: still a member). read_seq only moves forward.
CREATE TABLE group_chat_member (
    group_id      BIGINT       NOT NULL,
    uid           BIGINT       NOT NULL,
    joined_seq    BIGINT       NOT NULL,
    left_seq      BIGINT,
    read_seq      BIGINT       NOT NULL DEFAULT 0,
    mention_seq   BIGINT       NOT NULL DEFAULT 0,    -- the last message that mentioned this member by uid
    muted         BOOLEAN      NOT NULL DEFAULT false, -- the member muted the group: no pushes but mentions
    sync_version  BIGINT       NOT NULL DEFAULT 0,
    updated_at    TIMESTAMPTZ  NOT NULL DEFAULT now(),
    PRIMARY KEY (group_id, uid)
) WITH (fillfactor = 80);
-- A user's group conversations in one index range (the conversation list, the login's index load).
CREATE INDEX group_chat_member_uid_idx ON group_chat_member (uid, group_id);

-- Idempotent group sends, as chat_send for one-to-one ones.
CREATE TABLE group_chat_send (
    sender_uid  BIGINT       NOT NULL,
    device_key  VARCHAR(80)  NOT NULL,
    send_id     VARCHAR(64)  NOT NULL,
    group_id    BIGINT       NOT NULL,
    msg_id      BIGINT       NOT NULL,
    seq         BIGINT       NOT NULL,
    body_hash   BYTEA        NOT NULL,
    created_at  TIMESTAMPTZ  NOT NULL DEFAULT now(),
    PRIMARY KEY (sender_uid, device_key, send_id)
);
CREATE INDEX group_chat_send_created_at_idx ON group_chat_send (created_at);

-- Which nodes hold a connected device of some member of a group: a group message is forwarded to
-- these nodes only. A node adds its row when its first member device of the group logs in and
-- removes it in its sweep once it has had none for a while; a dead node's rows go when it is lost.
CREATE TABLE group_chat_node (
    group_id  BIGINT   NOT NULL,
    node_id   INTEGER  NOT NULL,
    PRIMARY KEY (group_id, node_id)
);
CREATE INDEX group_chat_node_node_idx ON group_chat_node (node_id);

-- The groups and members there are: every group's conversation starts at seq 0, every member sees it from there.
INSERT INTO group_chat (group_id) SELECT id FROM grp;
INSERT INTO group_chat_member (group_id, uid, joined_seq) SELECT group_id, uid, 0 FROM group_member;
