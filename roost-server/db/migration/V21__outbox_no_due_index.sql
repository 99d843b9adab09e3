-- The relay claims due rows by id (the primary key), from just above the rows it deleted last
-- (OutboxStore.relayBatch), and no query reads outbox_due_idx: it only cost an index entry per
-- outbox row written, one per stored chat message, and a dead one per row relayed.
DROP INDEX outbox_due_idx;
