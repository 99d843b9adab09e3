-- Roost V24: a roost-chat-events message carries a send batch's messages and is keyed by all of
-- their msgIds, separated by spaces (RocketMQ indexes each key), up to 100 of them: longer than
-- 255 characters. varchar to text rewrites nothing.
ALTER TABLE outbox ALTER COLUMN message_key TYPE TEXT;
