-- Roost V8: a user's aggregate presence (the set of device types online) and its version. Every
-- route change locks the user's row, compares the device types now online with the last announced
-- set, and bumps the version when it changed: contacts get frames with a version that grows per
-- user, so a client can drop a stale frame that overtakes a newer one.
CREATE TABLE presence_user (
    uid           BIGINT        PRIMARY KEY,
    version       BIGINT        NOT NULL DEFAULT 0,
    device_types  VARCHAR(200)  NOT NULL DEFAULT '',   -- sorted, comma-separated; '' = offline
    changed_at    TIMESTAMPTZ   NOT NULL DEFAULT now()
);
