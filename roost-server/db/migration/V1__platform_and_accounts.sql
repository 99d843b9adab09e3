-- Roost V1: platform tables (outbox, consumed-message dedupe) and the account/credential
-- tables behind authentication. Owned by Flyway; Hibernate only validates against it.

-- Transactional outbox: a module writes here in its own transaction; the relay sends to
-- RocketMQ after commit and deletes the row. A rollback therefore sends nothing.
CREATE TABLE outbox (
    id               BIGINT       PRIMARY KEY,            -- snowflake; also the message key
    topic            VARCHAR(127) NOT NULL,
    tag              VARCHAR(127),
    message_key      VARCHAR(255),                        -- business key (sharding/ordering hint)
    body             TEXT         NOT NULL,
    created_at       TIMESTAMPTZ  NOT NULL DEFAULT now(),
    attempts         INTEGER      NOT NULL DEFAULT 0,
    next_attempt_at  TIMESTAMPTZ  NOT NULL DEFAULT now(),
    last_error       VARCHAR(1000)
);
-- The relay scans due rows in id order.
CREATE INDEX outbox_due_idx ON outbox (next_attempt_at, id);

-- At-least-once delivery: a consumer records each message id it applied, in the same
-- transaction as the effect, so a redelivery is recognised and skipped.
CREATE TABLE consumed_message (
    consumer_group  VARCHAR(127) NOT NULL,
    message_id      VARCHAR(255) NOT NULL,
    consumed_at     TIMESTAMPTZ  NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer_group, message_id)
);
CREATE INDEX consumed_message_age_idx ON consumed_message (consumed_at);

-- Accounts. Users, enterprise back ends (role service) and operators (role admin) alike.
CREATE TABLE account (
    id             BIGINT       PRIMARY KEY,              -- snowflake, never reused
    username       VARCHAR(64)  NOT NULL,
    password_hash  VARCHAR(512),                          -- PBKDF2 (Jakarta Security format); NULL = no password login
    roles          VARCHAR(255) NOT NULL,                 -- comma-separated: admin, service, user
    status         VARCHAR(16)  NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'DISABLED', 'UNREGISTERED')),
    created_at     TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at     TIMESTAMPTZ  NOT NULL DEFAULT now(),
    version        INTEGER      NOT NULL DEFAULT 0
);
-- User names compare case-insensitively.
CREATE UNIQUE INDEX account_username_uq ON account (lower(username));

-- Bearer tokens, stored only as SHA-256 of the token (the token itself has 256 random bits,
-- so a fast hash is enough and lookup stays one index probe).
CREATE TABLE access_token (
    token_hash    BYTEA        PRIMARY KEY,
    account_id    BIGINT       NOT NULL REFERENCES account (id),
    issued_at     TIMESTAMPTZ  NOT NULL DEFAULT now(),
    expires_at    TIMESTAMPTZ  NOT NULL,
    revoked_at    TIMESTAMPTZ,
    description   VARCHAR(255)
);
CREATE INDEX access_token_account_idx ON access_token (account_id);
