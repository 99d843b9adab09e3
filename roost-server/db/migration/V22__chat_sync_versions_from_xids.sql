-- Conversation sync versions no longer come from a per-user counter row (docs/architecture.md,
-- "sync versions"): a changed conversation row takes its transaction's id × 65536 + a rank, and a
-- sync hands out only versions below the oldest transaction still running. Sends, read reports,
-- deletes and recalls therefore stop queueing on the user's chat_user row, which each of them
-- locked and updated. chat_user keeps the user's chat settings.
--
-- Versions already stored stay valid tokens: a user's counter grew by at most the rows one
-- transaction changed (far fewer than 65536) per transaction, and transaction ids count every
-- transaction, so each new version is above every old one.
ALTER TABLE chat_user DROP COLUMN sync_version;
