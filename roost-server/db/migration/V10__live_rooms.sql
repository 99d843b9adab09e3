-- Live rooms and online fans (seed 002). A room is a name the caller chooses; an anchor opens a
-- live session in it, viewers enter and leave that session.

CREATE TABLE room_session (
    id                   BIGINT       PRIMARY KEY,
    room_id              VARCHAR(64)  NOT NULL,
    anchor_id            BIGINT       NOT NULL,
    title                VARCHAR(200),
    opened_at            TIMESTAMPTZ  NOT NULL DEFAULT now(),
    anchor_heartbeat_at  TIMESTAMPTZ  NOT NULL DEFAULT now(),
    counts_published_at  TIMESTAMPTZ  NOT NULL DEFAULT now(),
    peak_online          INTEGER      NOT NULL DEFAULT 0,
    closed_at            TIMESTAMPTZ,
    close_reason         VARCHAR(16),          -- closed | anchor_timeout
    final_online         INTEGER,
    final_fans           INTEGER,
    -- true once every viewer record of a closed session has been taken offline (in batches,
    -- after the close committed: the seed's UNLINK lesson, never one transaction over 100,000 rows)
    cleared              BOOLEAN      NOT NULL DEFAULT false
);
-- At most one open session per room, enforced by the database.
CREATE UNIQUE INDEX room_session_open_idx ON room_session (room_id) WHERE closed_at IS NULL;
CREATE INDEX room_session_room_idx ON room_session (room_id, opened_at DESC, id DESC);
CREATE INDEX room_session_uncleared_idx ON room_session (closed_at) WHERE closed_at IS NOT NULL AND NOT cleared;
CREATE INDEX room_session_closed_idx ON room_session (closed_at) WHERE closed_at IS NOT NULL;

-- One row per (session, viewer): the online record while online, the entry history after.
-- No foreign key to room_session on purpose: every enter would take a KEY SHARE lock on the one
-- session row of a hot room (multixacts at 1,000+ enters/s); statements join the session instead.
-- last_heartbeat_at is not indexed, so a heartbeat is a HOT update (fillfactor leaves the room).
CREATE TABLE room_viewer (
    session_id         BIGINT       NOT NULL,
    uid                BIGINT       NOT NULL,
    online             BOOLEAN      NOT NULL,
    fan                BOOLEAN      NOT NULL,   -- follows the anchor (as of enter or the last heartbeat)
    entered_at         TIMESTAMPTZ  NOT NULL,   -- start of the current (or last) stay
    last_heartbeat_at  TIMESTAMPTZ  NOT NULL,
    first_entered_at   TIMESTAMPTZ  NOT NULL,
    last_left_at       TIMESTAMPTZ,
    left_by            VARCHAR(8),              -- leave | drop (connection closed) | timeout | close; null while online
    online_ms          BIGINT       NOT NULL DEFAULT 0,   -- time of the finished stays
    entries            INTEGER      NOT NULL DEFAULT 1,
    PRIMARY KEY (session_id, uid)
) WITH (fillfactor = 80);
CREATE INDEX room_viewer_online_idx ON room_viewer (session_id, uid) WHERE online;
CREATE INDEX room_viewer_fan_idx ON room_viewer (session_id, uid) WHERE online AND fan;
-- "fans who entered between t1 and t2" (the seed's ZCOUNT on a sorted set scored by entry time)
CREATE INDEX room_viewer_fan_entered_idx ON room_viewer (session_id, entered_at) WHERE online AND fan;

-- Online and online-fan counts per open session, split over 8 shard rows by uid (the seed's
-- "分片+计数器") so a hot room does not serialize every enter on one row; a read sums 8 rows.
-- Created with the session, deleted with its close: later changes to its viewers count nothing.
CREATE TABLE room_count (
    session_id   BIGINT    NOT NULL,
    shard        SMALLINT  NOT NULL,
    online       INTEGER   NOT NULL DEFAULT 0 CHECK (online >= 0),
    online_fans  INTEGER   NOT NULL DEFAULT 0 CHECK (online_fans >= 0 AND online_fans <= online),
    PRIMARY KEY (session_id, shard)
);

-- The counts move with the rows, in the statement that moves them: a statement-level trigger sums
-- (online, online AND fan) over the new rows minus the old rows per shard, so a 1,000-row batch
-- costs at most 8 counter updates. Shards are updated in (session, shard) order: no deadlocks.
CREATE FUNCTION room_viewer_count() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    d RECORD;
    rows_sql TEXT := CASE TG_OP
        WHEN 'INSERT' THEN 'SELECT session_id, uid, online, fan, 1 AS sign FROM new_rows'
        WHEN 'DELETE' THEN 'SELECT session_id, uid, online, fan, -1 AS sign FROM old_rows'
        ELSE 'SELECT session_id, uid, online, fan, 1 AS sign FROM new_rows
              UNION ALL SELECT session_id, uid, online, fan, -1 FROM old_rows' END;
BEGIN
    FOR d IN EXECUTE
        'SELECT session_id, (uid & 7)::smallint AS shard, sum(sign * online::int)::int AS d_online,
                sum(sign * (online AND fan)::int)::int AS d_fans
         FROM (' || rows_sql || ') r
         GROUP BY 1, 2
         HAVING sum(sign * online::int) <> 0 OR sum(sign * (online AND fan)::int) <> 0
         ORDER BY 1, 2'
    LOOP
        UPDATE room_count SET online = online + d.d_online, online_fans = online_fans + d.d_fans
        WHERE session_id = d.session_id AND shard = d.shard;
    END LOOP;
    RETURN NULL;
END $$;

CREATE TRIGGER room_viewer_count_ins AFTER INSERT ON room_viewer
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION room_viewer_count();
CREATE TRIGGER room_viewer_count_upd AFTER UPDATE ON room_viewer
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION room_viewer_count();
CREATE TRIGGER room_viewer_count_del AFTER DELETE ON room_viewer
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION room_viewer_count();
