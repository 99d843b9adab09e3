-- MQTT ingestion: let close updates be HOT. Setting closed_at used to change an indexed column
-- (the B-tree the purge reads), so every close wrote new entries into both indexes of
-- mqtt_connection. A BRIN index is summarizing (PostgreSQL 16+): changing its column keeps the
-- update HOT, and rows close in roughly the order they were inserted, which BRIN suits. The
-- fillfactor leaves room on each page for the new row versions that HOT needs.
DROP INDEX mqtt_connection_closed_idx;
CREATE INDEX mqtt_connection_closed_brin ON mqtt_connection USING brin (closed_at);
ALTER TABLE mqtt_connection SET (fillfactor = 80);
ALTER TABLE mqtt_client SET (fillfactor = 80);
