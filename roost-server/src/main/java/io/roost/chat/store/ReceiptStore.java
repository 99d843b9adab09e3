package io.roost.chat.store;

import io.roost.platform.metrics.StoreTimed;
import io.roost.chat.Cursor;
import io.roost.chat.ReadState;
import io.roost.platform.store.Jdbc;
import io.roost.platform.store.StatementFailed;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Receipts as cursors on the conversation rows, never an update of message rows: the owner's
 * {@code delivered_seq} / {@code read_seq}. The read cursor is mirrored on the peer's row as
 * {@code peer_read_seq} (with a new sync version, so the peer's devices find their read receipts when
 * they sync); the delivered cursor, which moves with nearly every message, is not: the peer's side
 * reads it from the owner's row. Every cursor only moves forward ({@code greatest}, or
 * {@code WHERE cursor < new}), so a late or repeated report changes nothing. Conversation rows are
 * locked in (owner, peer) order first, the order a send takes them.
 */
@StoreTimed
@Stateless
@TransactionAttribute(TransactionAttributeType.SUPPORTS)
public class ReceiptStore {

    /** The owner's side of a conversation as a read report needs it. */
    public record ReadView(long readSeq, long lastSeq, int unread, boolean readReceipts) {
    }

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    /**
     * Locks both sides of each report's conversation, in (owner, peer) order (the order a send
     * takes them), and reads them as a read report needs them: by {@code List.of(owner, peer)},
     * absent where there is no such row. Read under the locks, they stay true until the commit.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public Map<List<Long>, ReadView> lockBothSides(List<Cursor> reports) {
        int n = reports.size();
        Long[] owners = new Long[2 * n], peers = new Long[2 * n];
        for (int i = 0; i < n; i++) {
            Cursor c = reports.get(i);
            owners[2 * i] = c.owner();
            peers[2 * i] = c.peer();
            owners[2 * i + 1] = c.peer();
            peers[2 * i + 1] = c.owner();
        }
        Map<List<Long>, ReadView> views = new HashMap<>();
        query("""
                SELECT c.owner_uid, c.peer_uid, c.read_seq, c.last_seq, c.unread, coalesce(u.read_receipts, true)
                FROM chat_conversation c LEFT JOIN chat_user u ON u.uid = c.owner_uid
                WHERE (c.owner_uid, c.peer_uid) IN (SELECT o, p FROM unnest(?::int8[], ?::int8[]) AS k(o, p))
                ORDER BY c.owner_uid, c.peer_uid FOR UPDATE OF c""",
                rs -> views.put(List.of(rs.getLong(1), rs.getLong(2)), new ReadView(rs.getLong(3), rs.getLong(4), rs.getInt(5),
                        rs.getBoolean(6))), owners, peers);
        return views;
    }

    /**
     * Moves each owner's delivered cursor forward (never past the last message); returns the
     * cursors that moved, at their new position. One cursor per (owner, peer) in {@code acks}. Only
     * the owner's row changes (the peer's devices read it through the peer's side, see
     * {@code ChatStore}); its lock is taken in (owner, peer) order, the order a send takes them.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public List<Cursor> advanceDelivered(List<Cursor> acks) {
        return query("""
                WITH due AS (
                    SELECT c.owner_uid, c.peer_uid, least(a.seq, c.last_seq) AS seq
                    FROM chat_conversation c JOIN unnest(?::int8[], ?::int8[], ?::int8[]) AS a(owner_uid, peer_uid, seq)
                      ON c.owner_uid = a.owner_uid AND c.peer_uid = a.peer_uid
                    WHERE c.delivered_seq < least(a.seq, c.last_seq)
                    ORDER BY c.owner_uid, c.peer_uid FOR UPDATE OF c)
                UPDATE chat_conversation c SET delivered_seq = d.seq
                FROM due d WHERE c.owner_uid = d.owner_uid AND c.peer_uid = d.peer_uid AND c.delivered_seq < d.seq
                RETURNING c.owner_uid, c.peer_uid, c.delivered_seq""",
                rs -> new Cursor(rs.getLong(1), rs.getLong(2), rs.getLong(3)), owners(acks), peers(acks), seqs(acks));
    }

    /**
     * One row's part in a batch of read reports, its rows locked ({@link #lockBothSides}): the
     * owner's new read cursor ({@code readTo}, 0: not moved), and the read cursor of the peer to
     * mirror as the owner's read receipts ({@code peerReadTo}, 0: none); {@code rank} the rank of
     * the row's new sync version. A row can have both parts (both sides reported in one batch).
     */
    public record ReadChange(long owner, long peer, long readTo, long peerReadTo, int rank) {
    }

    /**
     * Applies read reports' changes, one update per row: a moved read cursor also moves the
     * delivered cursor (reading implies delivered) and recounts what is still unread after it (the
     * peer's messages and system messages above it that the owner has not deleted and that were not
     * recalled); a mirrored one sets {@code peer_read_seq}. Returns the rows whose read cursor
     * moved, by {@code List.of(owner, peer)}.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public Map<List<Long>, ReadState> applyReads(List<ReadChange> changes) {
        Map<List<Long>, ReadState> moved = new HashMap<>();
        query(APPLY_READS, rs -> {
            if (rs.getBoolean(5)) {
                moved.put(List.of(rs.getLong(1), rs.getLong(2)), new ReadState(rs.getLong(3), rs.getInt(4)));
            }
            return null;
        }, changes.stream().map(ReadChange::owner).toArray(Long[]::new), changes.stream().map(ReadChange::peer).toArray(Long[]::new),
                changes.stream().map(ReadChange::readTo).toArray(Long[]::new),
                changes.stream().map(ReadChange::peerReadTo).toArray(Long[]::new),
                changes.stream().map(ReadChange::rank).toArray(Integer[]::new));
        return moved;
    }

    private static final String APPLY_READS = """
                UPDATE chat_conversation c SET read_seq = greatest(c.read_seq, k.r), delivered_seq = greatest(c.delivered_seq, k.r),
                    unread = CASE WHEN k.r > c.read_seq THEN
                                 (SELECT count(*) FROM chat_timeline t
                                  WHERE t.owner_uid = c.owner_uid AND t.peer_uid = c.peer_uid AND t.seq > k.r
                                    AND t.sender_uid <> c.owner_uid AND NOT t.deleted_for_owner AND NOT t.recalled)
                             ELSE c.unread END,
                    peer_read_seq = greatest(c.peer_read_seq, k.m), sync_version = %s, updated_at = now()
                FROM unnest(?::int8[], ?::int8[], ?::int8[], ?::int8[], ?::int4[]) AS k(o, p, r, m, rk)
                WHERE c.owner_uid = k.o AND c.peer_uid = k.p
                RETURNING c.owner_uid, c.peer_uid, c.read_seq, c.unread, k.r > 0""".formatted(SyncVersionSql.of("k.rk"));

    private static Long[] owners(List<Cursor> cursors) {
        return cursors.stream().map(Cursor::owner).toArray(Long[]::new);
    }

    private static Long[] peers(List<Cursor> cursors) {
        return cursors.stream().map(Cursor::peer).toArray(Long[]::new);
    }

    private static Long[] seqs(List<Cursor> cursors) {
        return cursors.stream().map(Cursor::seq).toArray(Long[]::new);
    }

    private <T> List<T> query(String sql, Jdbc.Row<T> row, Object... params) {
        return Jdbc.query(dataSource, e -> new StatementFailed("chat receipt", e), sql, row, params);
    }
}
