-- Device sessions (seeds 003 and 001): the route <uid, deviceType> -> node, connection.
-- session_key is '' under the one-session-per-device-type policies (kick-old, refuse-new), so the
-- primary key itself forbids a second route; under allow-many it is the connection id.

CREATE TABLE presence_node (
    node_id       INTEGER      PRIMARY KEY,
    address       VARCHAR(255) NOT NULL,
    started_at    TIMESTAMPTZ  NOT NULL,
    heartbeat_at  TIMESTAMPTZ  NOT NULL
);

CREATE TABLE presence_device_route (
    uid                BIGINT       NOT NULL,
    device_type        VARCHAR(16)  NOT NULL,
    session_key        VARCHAR(64)  NOT NULL,
    node_id            INTEGER      NOT NULL,
    connection_id      VARCHAR(64)  NOT NULL,
    device_id          VARCHAR(128),
    epoch              BIGINT       NOT NULL,       -- snowflake of the login; grows per (uid, deviceType)
    login_at           TIMESTAMPTZ  NOT NULL DEFAULT now(),
    last_heartbeat_at  TIMESTAMPTZ  NOT NULL DEFAULT now(),
    PRIMARY KEY (uid, device_type, session_key)
);
CREATE UNIQUE INDEX presence_device_route_connection_uq ON presence_device_route (connection_id);
CREATE INDEX presence_device_route_heartbeat_idx ON presence_device_route (last_heartbeat_at);
CREATE INDEX presence_device_route_node_idx ON presence_device_route (node_id);
