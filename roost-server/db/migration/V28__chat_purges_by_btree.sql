-- The purges find expired rows through B-trees instead of BRIN indexes (docs/architecture.md,
-- "Retention and catch-up"). A BRIN index summarises block ranges, which is exact only while a
-- table is appended to in time order: once a purge has deleted rows and vacuum has freed their
-- space, new rows fill it, every block range soon holds rows of every age, and a purge batch
-- scans most of the table. chat_send reaches that state a day after it starts purging, the
-- timeline a retention period after.
--
-- The timeline's purge now reads its index by message id (msgIds grow with time), which it has
-- anyway; chat_send gets a B-tree on created_at, whose new entries land on its right-hand edge.
--
-- Building that index holds a write lock on chat_send (24 h of sendIds) while it reads the table.
-- docs/operations.md shows how to build it beforehand without the lock, so that this statement
-- finds it and does nothing.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass('chat_send_created_at_idx') AND NOT indisvalid) THEN
        RAISE EXCEPTION 'chat_send_created_at_idx exists but is not valid: drop it and build it again (docs/operations.md, "Upgrades")';
    END IF;
END $$;
CREATE INDEX IF NOT EXISTS chat_send_created_at_idx ON chat_send (created_at);
DROP INDEX chat_send_created_idx;
DROP INDEX chat_timeline_created_idx;
