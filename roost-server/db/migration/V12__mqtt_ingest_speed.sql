-- MQTT ingestion speed (issue 4). The history no longer needs a unique index to stay
-- duplicate-free: under the client row lock, an event is appended only when the fact it brings is
-- new to its connection row (MqttStore), so one index fewer is maintained per appended event.
ALTER TABLE mqtt_event DROP CONSTRAINT mqtt_event_client_id_channel_id_event_type_key;

-- received_at only serves the age-based purge, and rows arrive in received_at order: a BRIN index
-- (a few pages, no per-row entry) finds the old ranges as well as the B-tree did.
DROP INDEX mqtt_event_received_idx;
CREATE INDEX mqtt_event_received_brin ON mqtt_event USING brin (received_at);
