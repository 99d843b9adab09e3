-- Login log (seed 003: MQ -> Extlogic -> login DB): every login, logout, kick and timeout of a
-- device session, written by a consumer of roost-login-events (published through the outbox).
CREATE TABLE login_log (
    id             BIGINT       PRIMARY KEY,     -- the outbox message id: a redelivery inserts nothing
    uid            BIGINT       NOT NULL,
    event          VARCHAR(16)  NOT NULL CHECK (event IN ('login', 'logout', 'kick', 'timeout', 'node_lost')),
    device_type    VARCHAR(16)  NOT NULL,
    device_id      VARCHAR(128),
    node_id        INTEGER      NOT NULL,
    connection_id  VARCHAR(64)  NOT NULL,
    reason         VARCHAR(64),
    at             TIMESTAMPTZ  NOT NULL
);
CREATE INDEX login_log_uid_at_idx ON login_log (uid, at DESC);
