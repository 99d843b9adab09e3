package io.roost.room.store;

import io.roost.platform.metrics.StoreTimed;
import io.roost.platform.store.Jdbc;
import io.roost.platform.store.StatementFailed;
import io.roost.room.LoyalFan;
import io.roost.room.OpenRoom;
import io.roost.room.RoomSession;
import io.roost.room.RoomStats;
import io.roost.room.RoomTotals;
import io.roost.room.Viewer;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;
import javax.sql.DataSource;

/**
 * Live-room sessions and their viewers. Every change of a viewer is a statement over a sorted
 * batch of uids; the shard counters follow inside that statement (trigger in V10), so the counts
 * equal the rows at every commit and no caller ever adjusts a counter itself.
 *
 * <p>Lock order, which keeps every writer free of deadlocks: a transaction first takes the viewer
 * rows it changes, of one session, in uid order (background batches skip rows that are taken), and
 * only then the counter shards, in (session, shard) order, in the single statement whose trigger
 * moves them. Nobody waits for a viewer row while holding a shard. Closing a session takes its
 * shards in order and no viewer row.
 */
@StoreTimed
@Stateless
@TransactionAttribute(TransactionAttributeType.SUPPORTS) // reads join a caller's transaction, never begin one; writers say theirs
public class RoomStore {

    public record CountsDue(long sessionId, String roomId, long anchorId, int online, int onlineFans) {
    }

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    // ---- sessions ----

    /** Opens a session unless the room has one open (then nothing changes and false is returned). */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public boolean insertSession(long id, String roomId, long anchorId, String title) {
        if (update("""
                INSERT INTO room_session (id, room_id, anchor_id, title) VALUES (?, ?, ?, ?)
                ON CONFLICT (room_id) WHERE closed_at IS NULL DO NOTHING""", id, roomId, anchorId, title) == 0) {
            return false;
        }
        update("INSERT INTO room_count (session_id, shard) SELECT ?, g FROM generate_series(0, 7) g", id);
        return true;
    }

    /**
     * Closes an open session: its counters are locked in shard order (the order the trigger uses,
     * so no deadlock with enters in flight), deleted, and their sums kept as the final counts.
     * Viewer records stay online here; {@link #clearBatch} takes them offline afterwards.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public Optional<RoomSession> closeSession(long id, String reason) {
        query("SELECT shard FROM room_count WHERE session_id = ? ORDER BY shard FOR UPDATE", rs -> rs.getShort(1), id);
        List<Long> closed = query("""
                WITH gone AS (DELETE FROM room_count WHERE session_id = ? RETURNING online, online_fans)
                UPDATE room_session s SET closed_at = now(), close_reason = ?, final_online = c.o, final_fans = c.f,
                    peak_online = greatest(s.peak_online, c.o)
                FROM (SELECT coalesce(sum(online), 0)::int AS o, coalesce(sum(online_fans), 0)::int AS f FROM gone) c
                WHERE s.id = ? AND s.closed_at IS NULL
                RETURNING s.id""", rs -> rs.getLong(1), id, reason, id);
        return closed.isEmpty() ? Optional.empty() : sessionById(id);
    }

    @TransactionAttribute(TransactionAttributeType.REQUIRED)
    public boolean anchorHeartbeat(long sessionId) {
        return update("UPDATE room_session SET anchor_heartbeat_at = now() WHERE id = ? AND closed_at IS NULL", sessionId) == 1;
    }

    public Optional<RoomSession> openSession(String roomId) {
        return Jdbc.first(query(SESSION_SELECT + " WHERE s.room_id = ? AND s.closed_at IS NULL", RoomStore::session, roomId));
    }

    public Optional<RoomSession> sessionById(long id) {
        return Jdbc.first(query(SESSION_SELECT + " WHERE s.id = ?", RoomStore::session, id));
    }

    /** A room's sessions, newest first (snowflake ids follow opening time), before {@code beforeId}. */
    public List<RoomSession> sessions(String roomId, Long beforeId, int limit) {
        return query(SESSION_SELECT + " WHERE s.room_id = ? AND s.id < ? ORDER BY s.id DESC LIMIT ?", RoomStore::session,
                roomId, beforeId == null ? Long.MAX_VALUE : beforeId, limit);
    }

    /** The open session's counts in one round trip: 8 counter rows summed (the dashboard's poll). */
    public Optional<RoomStats> stats(String roomId) {
        return Jdbc.first(query("""
                SELECT s.id, s.anchor_id, coalesce(sum(c.online), 0)::int, coalesce(sum(c.online_fans), 0)::int
                FROM room_session s LEFT JOIN room_count c ON c.session_id = s.id
                WHERE s.room_id = ? AND s.closed_at IS NULL GROUP BY s.id""",
                rs -> new RoomStats(rs.getLong(1), rs.getLong(2), rs.getInt(3), rs.getInt(4)), roomId));
    }

    /** Open sessions, most watched first (the admin overview), and how many are open in all. */
    public List<OpenRoom> openRooms(int limit) {
        return query("""
                SELECT s.room_id, s.id, s.anchor_id, coalesce(sum(c.online), 0)::int, coalesce(sum(c.online_fans), 0)::int
                FROM room_session s LEFT JOIN room_count c ON c.session_id = s.id
                WHERE s.closed_at IS NULL GROUP BY s.id ORDER BY 4 DESC, s.room_id LIMIT ?""",
                rs -> new OpenRoom(rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getInt(4), rs.getInt(5)), limit);
    }

    public RoomTotals totals() {
        return query("""
                SELECT (SELECT count(*) FROM room_session WHERE closed_at IS NULL), coalesce(sum(online), 0), coalesce(sum(online_fans), 0)
                FROM room_count""", rs -> new RoomTotals(rs.getLong(1), rs.getLong(2), rs.getLong(3))).get(0);
    }

    // ---- viewers ----

    /**
     * Enters (or re-enters) sorted, distinct uids into an open session; a viewer already online
     * keeps its stay and only refreshes fan flag and heartbeat. Nothing happens if the session has
     * closed meanwhile (an empty list). Viewers come back in uid order.
     *
     * <p>Two statements, so that the counter shards move in one pass: an upsert fires the counting
     * trigger twice (for its updated rows, then for its inserted rows), and two such passes in
     * shard order each could still take shard 5 before shard 2 and deadlock with another enter.
     * The first statement takes every row of the batch in uid order and counts nothing (new viewers
     * go in offline); the second brings them all online, and its trigger takes the shards once.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRED)
    public List<Viewer> enter(long sessionId, Long[] uids, Boolean[] fans) {
        int taken = update("""
                INSERT INTO room_viewer AS v (session_id, uid, online, fan, entered_at, last_heartbeat_at, first_entered_at, entries)
                SELECT s.id, u.uid, false, u.fan, now(), now(), now(), 0
                FROM unnest(?::int8[], ?::bool[]) AS u(uid, fan) JOIN room_session s ON s.id = ? AND s.closed_at IS NULL
                ORDER BY u.uid
                ON CONFLICT (session_id, uid) DO UPDATE SET last_heartbeat_at = EXCLUDED.last_heartbeat_at""",
                uids, fans, sessionId);
        if (taken == 0) {
            return List.of();
        }
        List<Viewer> entered = new ArrayList<>(query("""
                UPDATE room_viewer v SET fan = b.follows, last_heartbeat_at = now(), online = true,
                    entered_at = CASE WHEN v.online THEN v.entered_at ELSE now() END,
                    entries = v.entries + CASE WHEN v.online THEN 0 ELSE 1 END, left_by = NULL
                FROM unnest(?::int8[], ?::bool[]) AS b(viewer_uid, follows)
                WHERE v.session_id = ? AND v.uid = b.viewer_uid
                RETURNING\s""" + VIEWER_COLUMNS, RoomStore::viewer, uids, fans, sessionId));
        entered.sort(Comparator.comparingLong(Viewer::uid));
        return entered;
    }

    /**
     * Buffered heartbeats of one session in one statement: refreshes the heartbeat and re-checks the
     * fan flag. A viewer taken offline by the timeout sweep or a dropped
     * connection comes back (it is alive after all); one who left or whose session closed does not.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int heartbeat(long sessionId, Long[] uids, Boolean[] fans) {
        Set<Long> taken = Set.copyOf(lockInUidOrder(sessionId, uids));
        List<Integer> at = IntStream.range(0, uids.length).filter(i -> taken.contains(uids[i])).boxed().toList();
        if (at.isEmpty()) {
            return 0;
        }
        return update("""
                UPDATE room_viewer v SET last_heartbeat_at = now(), fan = u.fan, online = true,
                    entered_at = CASE WHEN v.online THEN v.entered_at ELSE now() END,
                    entries = v.entries + CASE WHEN v.online THEN 0 ELSE 1 END, left_by = NULL
                FROM unnest(?::int8[], ?::bool[]) AS u(uid, fan)
                WHERE v.session_id = ? AND v.uid = u.uid AND (v.online OR v.left_by IN ('timeout', 'drop'))
                  AND EXISTS (SELECT 1 FROM room_session s WHERE s.id = v.session_id AND s.closed_at IS NULL)""",
                at.stream().map(i -> uids[i]).toArray(Long[]::new), at.stream().map(i -> fans[i]).toArray(Boolean[]::new), sessionId);
    }

    /**
     * Takes viewers offline; leaving twice changes nothing the second time.
     * {@code drop} (a device's connection closed) rather than {@code leave}: a heartbeat from the
     * user's other device brings it back.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRED)
    public int leave(long sessionId, Long[] uids, boolean drop) {
        Long[] taken = lockInUidOrder(sessionId, uids).toArray(Long[]::new);
        if (taken.length == 0) {
            return 0;
        }
        return update("UPDATE room_viewer SET online = false, last_left_at = now(), left_by = ?, " + STAY_ENDS_AT_NOW
                + " WHERE session_id = ? AND uid = ANY(?) AND online", drop ? "drop" : "leave", sessionId, taken);
    }

    /**
     * Takes a batch's viewer rows in uid order, before the statement that changes them: its join
     * with the batch may visit the rows in any order, and two batches taking two rows in opposite
     * orders would deadlock. (A separate statement: inside the update, a generic plan rescans the
     * batch for every row.) Returns the uids taken: the update must change those rows only. A row
     * that an enter commits in between may already be taken by a batch that waits for ours.
     */
    private List<Long> lockInUidOrder(long sessionId, Long[] uids) {
        return query("SELECT uid FROM room_viewer WHERE session_id = ? AND uid = ANY(?) ORDER BY uid FOR UPDATE", rs -> rs.getLong(1),
                sessionId, uids);
    }

    /** One batch of viewers silent for longer than {@code timeout}, in any session; they left at their last heartbeat. */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int sweepViewers(Duration timeout, int batch) {
        return update("""
                UPDATE room_viewer v SET online = false, last_left_at = v.last_heartbeat_at, left_by = 'timeout',
                    online_ms = v.online_ms + greatest(0, (extract(epoch FROM v.last_heartbeat_at - v.entered_at) * 1000)::bigint)
                WHERE (v.session_id, v.uid) IN (
                    SELECT session_id, uid FROM room_viewer WHERE online AND last_heartbeat_at < now() - make_interval(secs => ?)
                    ORDER BY session_id, uid LIMIT ? FOR UPDATE SKIP LOCKED)""", seconds(timeout), batch);
    }

    /**
     * One batch of a closed session's viewers taken offline as of the close; returns how many.
     * The batch is picked by a statement of its own and updated by its uids: one update whose
     * IN-subquery picked the batch was planned, on statistics from before the room filled, as a
     * comparison of every row of the session with every picked one (5 s a batch of 2,000 in a room
     * of 20,000).
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int clearBatch(long sessionId, int batch) {
        Long[] uids = query("SELECT uid FROM room_viewer WHERE session_id = ? AND online ORDER BY uid LIMIT ? FOR UPDATE SKIP LOCKED",
                rs -> rs.getLong(1), sessionId, batch).toArray(Long[]::new);
        if (uids.length == 0) {
            return 0;
        }
        return update("""
                UPDATE room_viewer v SET online = false, last_left_at = s.closed_at, left_by = 'close',
                    online_ms = v.online_ms + greatest(0, (extract(epoch FROM s.closed_at - v.entered_at) * 1000)::bigint)
                FROM room_session s
                WHERE s.id = ? AND s.closed_at IS NOT NULL AND v.session_id = s.id AND v.uid = ANY(?) AND v.online""",
                sessionId, uids);
    }

    /**
     * Marks a closed session cleared once no viewer is online. Not before a few seconds after the
     * close: an enter whose statement began just before the close may still commit.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public boolean markCleared(long sessionId) {
        return update("""
                UPDATE room_session SET cleared = true WHERE id = ? AND closed_at < now() - interval '5 seconds' AND NOT cleared
                  AND NOT EXISTS (SELECT 1 FROM room_viewer WHERE session_id = ? AND online)""", sessionId, sessionId) == 1;
    }

    public List<Long> unclearedSessions() {
        return query("SELECT id FROM room_session WHERE closed_at IS NOT NULL AND NOT cleared ORDER BY closed_at LIMIT 100",
                rs -> rs.getLong(1));
    }

    public List<Long> anchorTimedOut(Duration timeout) {
        return query("SELECT id FROM room_session WHERE closed_at IS NULL AND anchor_heartbeat_at < now() - make_interval(secs => ?) LIMIT 100",
                rs -> rs.getLong(1), seconds(timeout));
    }

    /** Claims the open sessions whose counts are due for publishing (one row update each, so one node publishes). */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public List<CountsDue> claimDueCounts(Duration interval) {
        return query("""
                UPDATE room_session s SET counts_published_at = now(), peak_online = greatest(s.peak_online, c.o)
                FROM (SELECT session_id, sum(online)::int AS o, sum(online_fans)::int AS f FROM room_count GROUP BY session_id) c
                WHERE c.session_id = s.id AND s.closed_at IS NULL AND s.counts_published_at <= now() - make_interval(secs => ?)
                RETURNING s.id, s.room_id, s.anchor_id, c.o, c.f""",
                rs -> new CountsDue(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getInt(4), rs.getInt(5)), seconds(interval));
    }

    /** Deletes one batch of the history of sessions closed (and cleared) longer ago than {@code retention}, then those sessions. */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int purgeHistory(Duration retention, int batch) {
        int viewers = update("""
                DELETE FROM room_viewer WHERE (session_id, uid) IN (
                    SELECT v.session_id, v.uid FROM room_session s JOIN room_viewer v ON v.session_id = s.id
                    WHERE s.closed_at < now() - make_interval(secs => ?) AND s.cleared LIMIT ?)""", seconds(retention), batch);
        int sessions = update("""
                DELETE FROM room_session s WHERE s.closed_at < now() - make_interval(secs => ?) AND s.cleared
                  AND NOT EXISTS (SELECT 1 FROM room_viewer v WHERE v.session_id = s.id)""", seconds(retention));
        return viewers + sessions;
    }

    public Optional<Viewer> viewer(long sessionId, long uid) {
        return Jdbc.first(query("SELECT " + VIEWER_COLUMNS + " FROM room_viewer WHERE session_id = ? AND uid = ?", RoomStore::viewer,
                sessionId, uid));
    }

    /** Online viewers (or only fans) by uid, after {@code after}. */
    public List<Viewer> viewers(long sessionId, boolean fansOnly, Long after, int limit) {
        return query("SELECT " + VIEWER_COLUMNS + " FROM room_viewer WHERE session_id = ? AND online"
                + (fansOnly ? " AND fan" : "") + " AND uid > ? ORDER BY uid LIMIT ?", RoomStore::viewer,
                sessionId, after == null ? Long.MIN_VALUE : after, limit);
    }

    /** Online fans whose current stay began in [from, to) — a range count over entry times. */
    public long fansEntered(long sessionId, OffsetDateTime from, OffsetDateTime to) {
        return query("SELECT count(*) FROM room_viewer WHERE session_id = ? AND online AND fan AND entered_at >= ? AND entered_at < ?",
                rs -> rs.getLong(1), sessionId, from, to).get(0);
    }

    public List<Long> recentSessionIds(String roomId, int n) {
        return query("SELECT id FROM room_session WHERE room_id = ? ORDER BY id DESC LIMIT ?", rs -> rs.getLong(1), roomId, n);
    }

    /**
     * Fans present in at least {@code minSessions} of the given sessions (all of them: the
     * intersection; one: the union), by uid after {@code after}, with their total time.
     */
    public List<LoyalFan> loyalFans(Long[] sessionIds, int minSessions, Long after, int limit) {
        return query("""
                SELECT uid, count(*)::int, sum(online_ms + CASE WHEN online THEN greatest(0, (extract(epoch FROM now() - entered_at) * 1000)::bigint) ELSE 0 END)::bigint
                FROM room_viewer WHERE session_id = ANY(?) AND fan AND uid > ?
                GROUP BY uid HAVING count(*) >= ? ORDER BY uid LIMIT ?""",
                rs -> new LoyalFan(rs.getLong(1), rs.getInt(2), rs.getLong(3)),
                sessionIds, after == null ? Long.MIN_VALUE : after, minSessions, limit);
    }

    // ---- plumbing ----

    private static final String SESSION_SELECT = """
            SELECT s.id, s.room_id, s.anchor_id, s.title, s.opened_at, s.anchor_heartbeat_at, s.closed_at, s.close_reason,
                   coalesce(s.final_online, c.o, 0), coalesce(s.final_fans, c.f, 0), greatest(s.peak_online, coalesce(c.o, 0)), s.cleared
            FROM room_session s LEFT JOIN LATERAL (
                SELECT sum(online)::int AS o, sum(online_fans)::int AS f FROM room_count WHERE session_id = s.id) c ON true""";

    private static final String VIEWER_COLUMNS = """
            session_id, uid, online, fan, entered_at, last_heartbeat_at, first_entered_at, last_left_at, left_by,
            online_ms + CASE WHEN online THEN greatest(0, (extract(epoch FROM now() - entered_at) * 1000)::bigint) ELSE 0 END, entries""";

    /** A stay that ends now adds its length to the finished time. */
    private static final String STAY_ENDS_AT_NOW =
            "online_ms = online_ms + greatest(0, (extract(epoch FROM now() - entered_at) * 1000)::bigint)";

    private static RoomSession session(ResultSet rs) throws SQLException {
        return new RoomSession(rs.getLong(1), rs.getString(2), rs.getLong(3), rs.getString(4), rs.getObject(5, OffsetDateTime.class),
                rs.getObject(6, OffsetDateTime.class), rs.getObject(7, OffsetDateTime.class), rs.getString(8), rs.getInt(9),
                rs.getInt(10), rs.getInt(11), rs.getBoolean(12));
    }

    private static Viewer viewer(ResultSet rs) throws SQLException {
        return new Viewer(rs.getLong(1), rs.getLong(2), rs.getBoolean(3), rs.getBoolean(4), rs.getObject(5, OffsetDateTime.class),
                rs.getObject(6, OffsetDateTime.class), rs.getObject(7, OffsetDateTime.class), rs.getObject(8, OffsetDateTime.class),
                rs.getString(9), rs.getLong(10), rs.getInt(11));
    }

    private static double seconds(Duration d) {
        return d.toMillis() / 1000.0;
    }

    private <T> List<T> query(String sql, Jdbc.Row<T> row, Object... params) {
        return Jdbc.query(dataSource, e -> new StatementFailed("room", e), sql, row, params);
    }

    private int update(String sql, Object... params) {
        return Jdbc.update(dataSource, e -> new StatementFailed("room", e), sql, params);
    }
}
