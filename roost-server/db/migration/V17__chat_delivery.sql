-- Roost V17: delivery of one-to-one chat — receipts as cursors, per-user chat settings, and the
-- offline-push coalescing buffer (docs/architecture.md, "chat delivery").

-- Each side's row also carries how far the peer's devices got (delivered) and how far the peer read:
-- the sender's devices see their receipts on the sender's own row.
ALTER TABLE chat_conversation
    ADD COLUMN peer_delivered_seq BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN peer_read_seq      BIGINT NOT NULL DEFAULT 0;

-- Per-user chat settings: whether peers get read receipts, and how much of a message an offline
-- push may show (full preview, the sender only, nothing).
ALTER TABLE chat_user
    ADD COLUMN read_receipts BOOLEAN    NOT NULL DEFAULT true,
    ADD COLUMN push_preview  VARCHAR(8) NOT NULL DEFAULT 'full' CHECK (push_preview IN ('full', 'sender', 'none'));

-- Messages waiting for an offline push, one row per recipient: a burst becomes one event with a
-- count. Written after a send when the recipient has no live route, when a route's connection is
-- gone, or when a device did not acknowledge; flushed to roost-offline-push through the outbox once
-- due_at has passed, unless the recipient's devices acknowledged the message by then.
CREATE TABLE chat_offline_push (
    recipient_uid    BIGINT       PRIMARY KEY,
    pending          INTEGER      NOT NULL CHECK (pending > 0),
    last_peer_uid    BIGINT       NOT NULL,          -- the conversation of the last message
    last_sender_uid  BIGINT       NOT NULL,          -- 0: the system
    last_msg_id      BIGINT       NOT NULL,
    last_seq         BIGINT       NOT NULL,
    preview          VARCHAR(200),                   -- masked at flush by the recipient's push_preview
    first_at         TIMESTAMPTZ  NOT NULL DEFAULT now(),
    due_at           TIMESTAMPTZ  NOT NULL
);
CREATE INDEX chat_offline_push_due_idx ON chat_offline_push (due_at);

-- Two more ways a device session ends, found by chat delivery: a push found the route's connection
-- gone from its node (unreachable), or the device did not acknowledge pushed messages (ack_timeout).
ALTER TABLE login_log DROP CONSTRAINT login_log_event_check;
ALTER TABLE login_log ADD CONSTRAINT login_log_event_check
    CHECK (event IN ('login', 'logout', 'kick', 'timeout', 'node_lost', 'unreachable', 'ack_timeout'));
