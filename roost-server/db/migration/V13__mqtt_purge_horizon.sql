-- MQTT ingestion (issue 4), two fewer costs per appended event.
--
-- 1. A connection row decides whether an event's fact is new. Only when the row is missing must the
-- history itself be probed, because the row may have been purged after its retention. Every
-- duplicate of a purged connection's event carries a time stored in that row, so the purge keeps
-- the largest such time as a horizon: an event later than the horizon cannot be one, and skips the
-- probe. Starts at the newest event time already recorded: purges before this migration kept no
-- horizon.
CREATE TABLE mqtt_purge_horizon (
    singleton   BOOLEAN PRIMARY KEY DEFAULT true CHECK (singleton),
    event_time  BIGINT  NOT NULL
);
INSERT INTO mqtt_purge_horizon (event_time)
SELECT coalesce(max(event_time), -9223372036854775808) FROM mqtt_event;

-- 2. Nothing refers to a history row by id: the purge goes by received_at (BRIN) and a trajectory
-- by client and time. The surrogate key cost a sequence call and an index entry per event.
ALTER TABLE mqtt_event DROP COLUMN id;
