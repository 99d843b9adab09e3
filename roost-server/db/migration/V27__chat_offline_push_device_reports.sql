-- A message can miss several of the recipient's devices (each stale route, each device that does not
-- acknowledge reports it), but it is one message to the push gateway. Per conversation, the highest
-- seq a device report has counted: a second device's report of the same messages adds nothing.
-- Messages that found no route at all are reported once and counted as they come.
ALTER TABLE chat_offline_push ADD COLUMN device_seqs JSONB NOT NULL DEFAULT '{}';
