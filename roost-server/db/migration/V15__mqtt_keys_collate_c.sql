-- MQTT ingestion: compare client, channel and group ids byte by byte. Under a libc collation
-- other than "C" (C.UTF-8 included) PostgreSQL compares text through strcoll: every index probe,
-- every index insert and every sort of the ingestion statement paid for it (seen in a perf profile
-- of the database during the benchmark). These ids are opaque keys, never shown in linguistic
-- order, and the takeover tie-break ("the larger channelId is newer") now orders them by code
-- point in every database, whatever its default collation (ConnectionRules' String.compareTo agrees
-- but between supplementary characters and U+E000–U+FFFF).
-- The indexes on these columns are rebuilt; the rows are not rewritten.
ALTER TABLE mqtt_client
    ALTER COLUMN client_id TYPE VARCHAR(128) COLLATE "C",
    ALTER COLUMN group_id TYPE VARCHAR(64) COLLATE "C",
    ALTER COLUMN latest_channel_id TYPE VARCHAR(64) COLLATE "C";
ALTER TABLE mqtt_connection
    ALTER COLUMN client_id TYPE VARCHAR(128) COLLATE "C",
    ALTER COLUMN channel_id TYPE VARCHAR(64) COLLATE "C";
ALTER TABLE mqtt_event
    ALTER COLUMN client_id TYPE VARCHAR(128) COLLATE "C",
    ALTER COLUMN group_id TYPE VARCHAR(64) COLLATE "C",
    ALTER COLUMN channel_id TYPE VARCHAR(64) COLLATE "C";
