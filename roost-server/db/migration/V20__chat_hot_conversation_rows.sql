-- Cheaper conversation rows under chat load (docs/architecture.md, "chat").
--
-- A delivered cursor moves with nearly every message. It is now written on the owner's row only;
-- the peer's side reads it from there (a join) instead of a mirrored copy: one row update and one
-- row lock fewer per acknowledged message.
ALTER TABLE chat_conversation DROP COLUMN peer_delivered_seq;

-- Every send changes both sides' sync_version. With it in an index, each of those updates was a
-- non-HOT update writing a new entry into both indexes; without it, they stay on the row's page
-- (fillfactor 70) and write no index entry. "What changed since version V" for one owner reads the
-- owner's rows through the primary key and keeps those after V: a cost per conversation of the
-- owner, paid at a device's sync rather than on every message.
DROP INDEX chat_conversation_sync_idx;
