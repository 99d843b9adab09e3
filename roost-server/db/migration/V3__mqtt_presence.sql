-- MQTT client presence from the MQTT service's status notifications (seed 004).
-- Order-independent by construction: a connection row only ever gains facts (its connect, its
-- close), so any order and any number of deliveries give the same row; a client's online state is
-- derived from its connections after locking the client row.

CREATE TABLE mqtt_client (
    client_id            VARCHAR(128) PRIMARY KEY,
    group_id             VARCHAR(64)  NOT NULL,      -- GID_xxx of GID_xxx@@@deviceId
    latest_connect_time  BIGINT,                     -- the newest connect: (time, channelId) is the order
    latest_channel_id    VARCHAR(64),
    online               BOOLEAN      NOT NULL DEFAULT false,
    online_since         BIGINT,                     -- time of the connect that made it online
    updated_at           TIMESTAMPTZ  NOT NULL DEFAULT now()
);
CREATE INDEX mqtt_client_group_online_idx ON mqtt_client (group_id, client_id) WHERE online;
CREATE INDEX mqtt_client_group_idx ON mqtt_client (group_id, client_id);

CREATE TABLE mqtt_connection (
    client_id        VARCHAR(128) NOT NULL,
    channel_id       VARCHAR(64)  NOT NULL,
    connect_time     BIGINT,                         -- null until the connect is seen
    client_ip        VARCHAR(64),
    disconnect_time  BIGINT,                         -- MQTT DISCONNECT seen
    tcpclean_time    BIGINT,                         -- TCP connection really closed
    first_seen_at    TIMESTAMPTZ  NOT NULL DEFAULT now(),
    closed_at        TIMESTAMPTZ,                    -- when we first saw a close
    PRIMARY KEY (client_id, channel_id)
);
-- Retention of closed connections.
CREATE INDEX mqtt_connection_closed_idx ON mqtt_connection (closed_at) WHERE closed_at IS NOT NULL;

-- The trajectory: every accepted event once (a channel has one connect, one disconnect, one tcpclean).
CREATE TABLE mqtt_event (
    id           BIGSERIAL    PRIMARY KEY,
    client_id    VARCHAR(128) NOT NULL,
    group_id     VARCHAR(64)  NOT NULL,
    channel_id   VARCHAR(64)  NOT NULL,
    event_type   VARCHAR(16)  NOT NULL CHECK (event_type IN ('connect', 'disconnect', 'tcpclean')),
    event_time   BIGINT       NOT NULL,
    client_ip    VARCHAR(64),
    received_at  TIMESTAMPTZ  NOT NULL DEFAULT now(),
    UNIQUE (client_id, channel_id, event_type)
);
CREATE INDEX mqtt_event_client_time_idx ON mqtt_event (client_id, event_time);
CREATE INDEX mqtt_event_group_time_idx ON mqtt_event (group_id, event_time);
CREATE INDEX mqtt_event_received_idx ON mqtt_event (received_at);

-- Messages that can never be applied (bad JSON, missing fields, unknown type): kept with the
-- reason and acknowledged, so they do not block the queue by being retried for ever.
CREATE TABLE mqtt_dead_letter (
    id           BIGSERIAL    PRIMARY KEY,
    message_id   VARCHAR(128),
    tag          VARCHAR(64),
    body         TEXT,
    reason       VARCHAR(500) NOT NULL,
    received_at  TIMESTAMPTZ  NOT NULL DEFAULT now()
);
