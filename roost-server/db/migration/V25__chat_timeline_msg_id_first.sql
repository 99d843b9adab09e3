-- A message by id (quotes, the resend lookup) through an index that leads with msg_id instead of
-- owner_uid (docs/architecture.md, "chat"). msgIds grow with time, so every new entry of this
-- index lands on the right-hand edge of its partition's B-tree, a page that stays in memory, where
-- (owner_uid, msg_id) put each of a send's two entries on a random page among all owners'. On a
-- timeline-shaped table of 1M rows and more, inserts ran at 55-65 % of the rate without either
-- index with the old one and at 80-86 % with this one, which also writes less log
-- (bench/timeline-index.sh, docs/benchmarks.md). Both find a message by (owner_uid, msg_id), and
-- the uniqueness is the same.
--
-- The build holds a write lock on the timeline for as long as it reads it (seconds per million
-- rows). docs/operations.md shows how to build the same index beforehand, partition by partition
-- and without the lock, so that this statement finds it and does nothing.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('chat_timeline_msg_owner_idx') AND NOT indisvalid) THEN
        RAISE EXCEPTION 'chat_timeline_msg_owner_idx exists but is not valid yet: attach an index of every timeline partition to it first (docs/operations.md, "Upgrades")';
    END IF;
END $$;
CREATE UNIQUE INDEX IF NOT EXISTS chat_timeline_msg_owner_idx ON chat_timeline (msg_id, owner_uid);
DROP INDEX chat_timeline_msg_idx;
