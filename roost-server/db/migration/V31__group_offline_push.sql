-- Roost V31: the coalesced offline push of group messages (docs/architecture.md, "Group chat"). One
-- row per group with messages waiting for their offline push: a send batch adds its messages to its
-- group's row (one row update per group and batch, never one per member); when the row is due, the
-- flush finds the group's members that have no live device and have not read them, and tells the
-- push gateway with a few events (a count per group, mentions apart).
CREATE TABLE group_offline_push (
    group_id     BIGINT       PRIMARY KEY,
    first_seq    BIGINT       NOT NULL,
    last_seq     BIGINT       NOT NULL,
    pending      INTEGER      NOT NULL CHECK (pending > 0),
    mentioned    BIGINT[]     NOT NULL DEFAULT '{}',   -- members mentioned by name in these messages
    mention_all  BOOLEAN      NOT NULL DEFAULT false,
    first_at     TIMESTAMPTZ  NOT NULL DEFAULT now(),
    due_at       TIMESTAMPTZ  NOT NULL
);
CREATE INDEX group_offline_push_due_idx ON group_offline_push (due_at);
