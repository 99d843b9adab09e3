-- A conversation's seq counter moves from its chat_pair row onto its two chat_conversation rows
-- (docs/architecture.md, "chat"). Every send already rewrites both of those rows; a send batch now
-- adds its message count to last_seq on both sides, in (owner, peer) order, so the two stay equal
-- and the first of them serialises the conversation's senders as the pair row did. One row update
-- and one row lock fewer per conversation in every send batch.
--
-- Both sides have carried the pair's last seq since the first send (each send set last_seq to its
-- newest seq on both rows); this makes sure of it before the pair rows go.
UPDATE chat_conversation c SET last_seq = p.last_seq
FROM chat_pair p
WHERE p.low_uid = least(c.owner_uid, c.peer_uid) AND p.high_uid = greatest(c.owner_uid, c.peer_uid)
  AND c.last_seq <> p.last_seq;

DROP TABLE chat_pair;
