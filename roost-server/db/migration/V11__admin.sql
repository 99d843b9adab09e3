-- Admin: every operator action (who, what, when, on what, how it ended), and the overview numbers
-- sampled every 10 s for the dashboard's charts.

CREATE TABLE admin_audit (
    id          BIGINT       PRIMARY KEY,
    at          TIMESTAMPTZ  NOT NULL DEFAULT now(),
    actor_id    BIGINT       NOT NULL,
    action      VARCHAR(64)  NOT NULL,
    target_type VARCHAR(32)  NOT NULL,
    target_id   VARCHAR(200) NOT NULL,
    detail      TEXT,
    outcome     VARCHAR(16)  NOT NULL      -- ok | refused | failed
);
CREATE INDEX admin_audit_at_idx ON admin_audit (id DESC);
CREATE INDEX admin_audit_target_idx ON admin_audit (target_type, target_id, id DESC);

-- One row per 10 s bucket and metric; the bucket's primary key lets one node sample it.
CREATE TABLE admin_sample (
    bucket  TIMESTAMPTZ  NOT NULL,
    metric  VARCHAR(64)  NOT NULL,
    value   BIGINT       NOT NULL,
    PRIMARY KEY (bucket, metric)
);
CREATE TABLE admin_sample_bucket (
    bucket  TIMESTAMPTZ  PRIMARY KEY
);
