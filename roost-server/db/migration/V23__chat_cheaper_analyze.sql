-- Cheaper and rarer statistics for the chat tables that grow with every message
-- (docs/operations.md, "Autovacuum under a chat load").
--
-- The 16 timeline partitions grow in lockstep, so autovacuum analyzes them one after another in
-- the same round, and on a young database (each partition analyzed whenever it grew by a tenth) in
-- every round, once a minute. Each ANALYZE sorted a 30,000-row sample of every column, the JSON
-- bodies and the sendIds (distinct strings, compared by collation) among them: a quarter of a
-- second of CPU per partition, four seconds on end, in which a busy node's chat latency rose
-- several times over.
--
-- No query filters or joins on these columns (every read goes through a key: owner, peer and seq;
-- owner and msgId; the sender's sendId key), so the planner has no use for their statistics.
ALTER TABLE chat_timeline
    ALTER COLUMN body SET STATISTICS 0,
    ALTER COLUMN send_id SET STATISTICS 0,
    ALTER COLUMN msg_type SET STATISTICS 0,
    ALTER COLUMN quote_msg_id SET STATISTICS 0,
    ALTER COLUMN priority SET STATISTICS 0;
ALTER TABLE chat_send
    ALTER COLUMN device_key SET STATISTICS 0,
    ALTER COLUMN send_id SET STATISTICS 0,
    ALTER COLUMN body_hash SET STATISTICS 0;

-- A partition is analyzed after a million changed rows at the earliest (the default is 50 plus a
-- tenth of the partition). Its key columns' distribution hardly moves as it grows, and the plans
-- of its keyed reads do not depend on it; a large partition's tenth is more than a million anyway.
DO $$
BEGIN
    FOR p IN 0..15 LOOP
        EXECUTE format('ALTER TABLE chat_timeline_p%s SET (autovacuum_analyze_threshold = 1000000)', lpad(p::text, 2, '0'));
    END LOOP;
END $$;
