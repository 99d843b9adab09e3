package io.roost.chat.store;

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
 * reads it from the owner's row. Every
 * cursor only moves forward ({@code WHERE cursor < new}), so a late or repeated report changes
 * nothing. Conversation rows are locked in (owner, peer) order first, the order a send takes them.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.SUPPORTS)
public class ReceiptStore {

    /** The owner's side of a conversation as a read report needs it. */
    public record ReadView(long readSeq, long lastSeq, int unread, boolean readReceipts) {
    }

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    /** The owners' sides of these conversations, by {@code List.of(owner, peer)}; absent ones are missing. */
    public Map<List<Long>, ReadView> readViews(List<Cursor> keys) {
        Map<List<Long>, ReadView> views = new HashMap<>();
        query("""
                SELECT c.owner_uid, c.peer_uid, c.read_seq, c.last_seq, c.unread, coalesce(u.read_receipts, true)
                FROM chat_conversation c JOIN unnest(?::int8[], ?::int8[]) AS k(o, p) ON c.owner_uid = k.o AND c.peer_uid = k.p
                LEFT JOIN chat_user u ON u.uid = c.owner_uid""",
                rs -> views.put(List.of(rs.getLong(1), rs.getLong(2)), new ReadView(rs.getLong(3), rs.getLong(4), rs.getInt(5),
                        rs.getBoolean(6))), owners(keys), peers(keys));
        return views;
    }

    /** Locks both sides of each cursor's conversation, in (owner, peer) order. */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void lockBothSides(List<Cursor> cursors) {
        int n = cursors.size();
        Long[] owners = new Long[2 * n], peers = new Long[2 * n];
        for (int i = 0; i < n; i++) {
            Cursor c = cursors.get(i);
            owners[2 * i] = c.owner();
            peers[2 * i] = c.peer();
            owners[2 * i + 1] = c.peer();
            peers[2 * i + 1] = c.owner();
        }
        query("""
                SELECT 1 FROM chat_conversation c
                WHERE (c.owner_uid, c.peer_uid) IN (SELECT o, p FROM unnest(?::int8[], ?::int8[]) AS k(o, p))
                ORDER BY c.owner_uid, c.peer_uid FOR UPDATE""", rs -> 1, owners, peers);
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
     * Moves each reader's read cursor to its seq (at most the last message; reading implies
     * delivered) and recounts what is still unread after it: the peer's messages and system
     * messages above the cursor that the reader has not deleted and that were not recalled. {@code ranks[i]}: the rank of the
     * row's new sync version. Returns the cursors that moved, by {@code List.of(reader, peer)}.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public Map<List<Long>, ReadState> advanceReads(List<Cursor> reads, Integer[] ranks) {
        Map<List<Long>, ReadState> moved = new HashMap<>();
        query(ADVANCE_READS,
                rs -> moved.put(List.of(rs.getLong(1), rs.getLong(2)), new ReadState(rs.getLong(3), rs.getInt(4))),
                owners(reads), peers(reads), seqs(reads), ranks);
        return moved;
    }

    /**
     * Mirrors readers' cursors on their peers' rows (the read receipts the peers' devices sync):
     * {@code mirrors} are (peer, reader, readSeq), {@code ranks[i]} the rank of the peer row's new version.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void mirrorReads(List<Cursor> mirrors, Integer[] ranks) {
        update(MIRROR_READS, owners(mirrors), peers(mirrors), seqs(mirrors), ranks);
    }

    private static final String ADVANCE_READS = """
                UPDATE chat_conversation c SET read_seq = least(k.s, c.last_seq), delivered_seq = greatest(c.delivered_seq, least(k.s, c.last_seq)),
                    unread = (SELECT count(*) FROM chat_timeline t
                              WHERE t.owner_uid = c.owner_uid AND t.peer_uid = c.peer_uid AND t.seq > least(k.s, c.last_seq)
                                AND t.sender_uid <> c.owner_uid AND NOT t.deleted_for_owner AND NOT t.recalled),
                    sync_version = %s, updated_at = now()
                FROM unnest(?::int8[], ?::int8[], ?::int8[], ?::int4[]) AS k(o, p, s, r)
                WHERE c.owner_uid = k.o AND c.peer_uid = k.p AND c.read_seq < least(k.s, c.last_seq)
                RETURNING c.owner_uid, c.peer_uid, c.read_seq, c.unread""".formatted(SyncVersionSql.of("k.r"));
    private static final String MIRROR_READS = """
                UPDATE chat_conversation c SET peer_read_seq = k.s, sync_version = %s, updated_at = now()
                FROM unnest(?::int8[], ?::int8[], ?::int8[], ?::int4[]) AS k(o, p, s, r)
                WHERE c.owner_uid = k.o AND c.peer_uid = k.p AND c.peer_read_seq < k.s""".formatted(SyncVersionSql.of("k.r"));

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

    private int update(String sql, Object... params) {
        return Jdbc.update(dataSource, e -> new StatementFailed("chat receipt", e), sql, params);
    }
}
