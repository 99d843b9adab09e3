-- Roost V18: the retention purge of one-to-one chat (docs/architecture.md, "chat"). Each timeline
-- partition is appended to in time order, so a BRIN index on created_at finds the rows past the
-- retention in a few block ranges instead of a scan of the partition per batch; it costs a few
-- pages, not a B-tree as large as the table. (Recall needs no schema change: chat_timeline.recalled
-- exists since V16.)
CREATE INDEX chat_timeline_created_idx ON chat_timeline USING brin (created_at);
