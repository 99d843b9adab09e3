package io.roost.chat.store;

import io.roost.platform.metrics.StoreTimed;
import io.roost.platform.store.Jdbc;
import io.roost.platform.store.SqlArrays;
import io.roost.platform.store.StatementFailed;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import javax.sql.DataSource;

/**
 * The offline-push buffer: one row per recipient gathers undelivered messages until it is due,
 * so a burst is one push with a count. Taking due rows skips rows another node holds, so every
 * node's flush timer can run and each row goes out once.
 */
@StoreTimed
@Stateless
@TransactionAttribute(TransactionAttributeType.MANDATORY)
public class OfflinePushStore {

    /**
     * A due row: {@code pending} messages gathered since {@code firstAt}, the last of them given;
     * {@code pushPreview} is the recipient's setting now, {@code deliveredSeq} how far the
     * recipient's devices have acknowledged that last message's conversation, {@code unread} the
     * recipient's unread messages in all conversations now (an app icon's badge).
     */
    public record Due(long recipient, int pending, long peer, long sender, long msgId, long seq, String preview,
                      OffsetDateTime firstAt, String pushPreview, long deliveredSeq, long unread) {
    }

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    /**
     * {@code count} messages of the conversation with {@code peer}, up to {@code seq} (message
     * {@code msgId} from {@code sender}), that missed the recipient's devices. {@code byDevice}:
     * one device's report (a stale route, no acknowledgement), which the recipient's other devices
     * may report too.
     */
    public record Undelivered(long recipient, long peer, long sender, long msgId, long seq, String preview, int count,
                              boolean byDevice) {
    }

    /**
     * Adds the messages to the recipient's row (created due after {@code delay}; a later add keeps
     * its due time). The row names the newest message: an add of an older message of the same
     * conversation (adds come from several paths, in no set order) leaves it as it is, so the
     * flush's "acknowledged after all" check looks at the newest message, not an older one. A
     * device's report counts only messages above the highest seq a device report of the
     * conversation counted before, so a message that missed two devices counts once.
     */
    public void add(Undelivered u, Duration delay) {
        update(ADD, addParameters(u, delay));
    }

    /** {@link #add} for each of {@code all}, in one round trip. */
    public void addAll(List<Undelivered> all, Duration delay) {
        if (all.isEmpty()) {
            return;
        }
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(ADD)) {
            for (Undelivered u : all) {
                SqlArrays.bind(c, ps, addParameters(u, delay));
                ps.addBatch();
            }
            ps.executeBatch();
        } catch (SQLException e) {
            throw new StatementFailed("chat offline push", e);
        }
    }

    private static Object[] addParameters(Undelivered u, Duration delay) {
        // a device's report carries its conversation's seq, which is also what tells it from a report of no device
        return new Object[] {u.recipient(), u.count(), u.peer(), u.sender(), u.msgId(), u.seq(), u.preview(),
                delay.toMillis() / 1000.0, u.byDevice() ? "{\"" + u.peer() + "\":" + u.seq() + "}" : "{}"};
    }

    /** The named message's columns, each taken from the add if its message is newer (another conversation's counts as newer). */
    private static final String NEWER_MESSAGE = java.util.stream.Stream.of("last_peer_uid", "last_sender_uid", "last_msg_id", "last_seq", "preview")
            .map(c -> c + " = CASE WHEN EXCLUDED.last_peer_uid <> o.last_peer_uid OR EXCLUDED.last_seq > o.last_seq THEN EXCLUDED." + c
                    + " ELSE o." + c + " END")
            .collect(java.util.stream.Collectors.joining(", "));
    /** The highest seq of the added conversation that a device report counted so far (0: none). */
    private static final String DEVICE_COUNTED = "coalesce((o.device_seqs ->> EXCLUDED.last_peer_uid::text)::bigint, 0)";
    private static final String ADD = """
                INSERT INTO chat_offline_push AS o (recipient_uid, pending, last_peer_uid, last_sender_uid, last_msg_id, last_seq, preview,
                    due_at, device_seqs)
                VALUES (?, ?, ?, ?, ?, ?, ?, now() + make_interval(secs => ?), ?::jsonb)
                ON CONFLICT (recipient_uid) DO UPDATE SET
                    pending = o.pending + CASE WHEN EXCLUDED.device_seqs = '{}' THEN EXCLUDED.pending
                        ELSE least(EXCLUDED.pending, greatest(0, EXCLUDED.last_seq - %1$s)) END,
                    device_seqs = CASE WHEN EXCLUDED.device_seqs = '{}' THEN o.device_seqs
                        ELSE o.device_seqs || jsonb_build_object(EXCLUDED.last_peer_uid::text, greatest(EXCLUDED.last_seq, %1$s)) END,
                    %2$s""".formatted(DEVICE_COUNTED, NEWER_MESSAGE);

    /**
     * Removes and returns up to {@code limit} due rows that no other transaction holds; a message
     * recalled (or deleted by its recipient) since it was buffered loses its preview, so its text
     * never reaches the push gateway. The unread total is summed over the recipient's conversation
     * rows (their primary key's range): what the badge shows when the event goes out.
     */
    public List<Due> takeDue(int limit) {
        return Jdbc.query(dataSource, e -> new StatementFailed("chat offline push", e), """
                WITH due AS (
                    SELECT recipient_uid FROM chat_offline_push WHERE due_at <= now() ORDER BY due_at LIMIT ? FOR UPDATE SKIP LOCKED),
                gone AS (
                    DELETE FROM chat_offline_push o USING due WHERE o.recipient_uid = due.recipient_uid
                    RETURNING o.recipient_uid, o.pending, o.last_peer_uid, o.last_sender_uid, o.last_msg_id, o.last_seq, o.preview, o.first_at)
                SELECT g.recipient_uid, g.pending, g.last_peer_uid, g.last_sender_uid, g.last_msg_id, g.last_seq,
                    CASE WHEN t.recalled OR t.deleted_for_owner THEN NULL ELSE g.preview END, g.first_at,
                    coalesce(u.push_preview, 'full'), coalesce(c.delivered_seq, 0),
                    (SELECT coalesce(sum(x.unread), 0) FROM chat_conversation x WHERE x.owner_uid = g.recipient_uid)
                FROM gone g
                LEFT JOIN chat_user u ON u.uid = g.recipient_uid
                LEFT JOIN chat_conversation c ON c.owner_uid = g.recipient_uid AND c.peer_uid = g.last_peer_uid
                LEFT JOIN chat_timeline t ON t.owner_uid = g.recipient_uid AND t.peer_uid = g.last_peer_uid AND t.seq = g.last_seq""",
                rs -> new Due(rs.getLong(1), rs.getInt(2), rs.getLong(3), rs.getLong(4), rs.getLong(5), rs.getLong(6), rs.getString(7),
                        rs.getObject(8, OffsetDateTime.class), rs.getString(9), rs.getLong(10), rs.getLong(11)), limit);
    }

    /**
     * The rows waiting in both offline-push buffers, one-to-one ({@code chat_offline_push}, a row per
     * recipient) and group ({@code group_offline_push}, a row per group), each counted up to
     * {@code countUpTo} so that a backlog is never scanned whole; no transaction (a read for a gauge).
     */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public long waiting(int countUpTo) {
        return Jdbc.query(dataSource, e -> new StatementFailed("chat offline push", e), """
                SELECT (SELECT count(*) FROM (SELECT 1 FROM chat_offline_push LIMIT ?) o)
                    + (SELECT count(*) FROM (SELECT 1 FROM group_offline_push LIMIT ?) g)""",
                rs -> rs.getLong(1), countUpTo, countUpTo).get(0);
    }

    private void update(String sql, Object... params) {
        Jdbc.update(dataSource, e -> new StatementFailed("chat offline push", e), sql, params);
    }
}
