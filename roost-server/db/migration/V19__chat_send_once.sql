-- A stored sendId's seq is read from the sender's timeline copy (chat_send joined to chat_timeline
-- on owner_uid = sender_uid and msg_id), so a send inserts its chat_send row and never updates it.
ALTER TABLE chat_send DROP COLUMN seq;

-- A conversation row is updated several times per message (the send, the delivered cursor, read
-- receipts). Free space on its page lets an update that changes no indexed column (a delivered
-- cursor) stay on the page without new index entries (a HOT update).
ALTER TABLE chat_conversation SET (fillfactor = 70);
