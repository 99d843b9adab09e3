-- RTC channel presence from Agora NCS channel events (seed 000).
-- Ordering lives in the row: every member row carries the clientSeq of the last event applied,
-- and every update is one conditional statement (... WHERE last_client_seq < EXCLUDED...).

CREATE TABLE rtc_channel (
    channel_name   VARCHAR(128) PRIMARY KEY,
    created_ts     BIGINT,                     -- ts (s) of the latest 101 channel create
    destroyed_ts   BIGINT,                     -- ts (s) of the latest 102 channel destroy
    first_seen_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at     TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- role: 1 BROADCASTER, 2 AUDIENCE, 3 COMMUNICATION
CREATE TABLE rtc_member (
    channel_name     VARCHAR(128) NOT NULL,
    uid              BIGINT       NOT NULL,
    role             SMALLINT     NOT NULL CHECK (role IN (1, 2, 3)),
    online           BOOLEAN      NOT NULL,
    last_client_seq  BIGINT       NOT NULL,
    last_event_type  SMALLINT     NOT NULL,
    last_ts          BIGINT       NOT NULL,    -- ts (s) of the event that set this state
    platform         INTEGER,
    client_type      INTEGER,
    account          VARCHAR(255),
    joined_at        TIMESTAMPTZ,              -- when we applied the join that made it online
    left_at          TIMESTAMPTZ,              -- when we applied the event that made it offline
    leave_reason     INTEGER,                  -- NCS reason, or 0 with last_event_type 102 (channel destroyed)
    updated_at       TIMESTAMPTZ  NOT NULL DEFAULT now(),
    PRIMARY KEY (channel_name, uid)
);
-- "Where is uid X now" without scanning channels.
CREATE INDEX rtc_member_uid_online_idx ON rtc_member (uid) WHERE online;
-- The retention sweep finds offline tombstones whose last change is older than the retention.
CREATE INDEX rtc_member_offline_idx ON rtc_member (updated_at) WHERE NOT online;

-- Online counts per channel and role, kept exact by a trigger on rtc_member, sharded by uid so a
-- hot channel does not serialize every join on one counter row; a read sums the shards.
CREATE TABLE rtc_channel_count (
    channel_name   VARCHAR(128) NOT NULL,
    shard          SMALLINT     NOT NULL,
    broadcasters   INTEGER      NOT NULL DEFAULT 0,
    audience       INTEGER      NOT NULL DEFAULT 0,
    communication  INTEGER      NOT NULL DEFAULT 0,
    PRIMARY KEY (channel_name, shard)
);

CREATE FUNCTION rtc_member_count() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    d_b INTEGER := 0; d_a INTEGER := 0; d_c INTEGER := 0;
    ch VARCHAR(128);
    u BIGINT;
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.online THEN
        d_b := d_b - (OLD.role = 1)::int; d_a := d_a - (OLD.role = 2)::int; d_c := d_c - (OLD.role = 3)::int;
        ch := OLD.channel_name; u := OLD.uid;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.online THEN
        d_b := d_b + (NEW.role = 1)::int; d_a := d_a + (NEW.role = 2)::int; d_c := d_c + (NEW.role = 3)::int;
        ch := NEW.channel_name; u := NEW.uid;
    END IF;
    IF d_b <> 0 OR d_a <> 0 OR d_c <> 0 THEN
        INSERT INTO rtc_channel_count AS k (channel_name, shard, broadcasters, audience, communication)
        VALUES (ch, (u & 7)::smallint, d_b, d_a, d_c)
        ON CONFLICT (channel_name, shard) DO UPDATE SET
            broadcasters = k.broadcasters + EXCLUDED.broadcasters,
            audience = k.audience + EXCLUDED.audience,
            communication = k.communication + EXCLUDED.communication;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER rtc_member_count_trg AFTER INSERT OR UPDATE OR DELETE ON rtc_member
    FOR EACH ROW EXECUTE FUNCTION rtc_member_count();

-- 999 (abnormal frequent join/leave): kick through Agora's kicking-rule API after a delay,
-- retried with backoff. One row per (channel, uid, clientSeq) of the leave, so a redelivered
-- notice never kicks twice.
CREATE TABLE rtc_channel_kick (
    id               BIGINT       PRIMARY KEY,
    channel_name     VARCHAR(128) NOT NULL,
    uid              BIGINT       NOT NULL,
    client_seq       BIGINT       NOT NULL,
    status           VARCHAR(16)  NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'DONE', 'FAILED')),
    due_at           TIMESTAMPTZ  NOT NULL,
    attempts         INTEGER      NOT NULL DEFAULT 0,
    rule_id          BIGINT,
    last_error       VARCHAR(1000),
    created_at       TIMESTAMPTZ  NOT NULL DEFAULT now(),
    done_at          TIMESTAMPTZ,
    UNIQUE (channel_name, uid, client_seq)
);
CREATE INDEX rtc_channel_kick_due_idx ON rtc_channel_kick (due_at) WHERE status = 'PENDING';
