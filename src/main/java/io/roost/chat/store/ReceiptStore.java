package io.roost.chat.store;

import io.roost.chat.Cursor;
import io.roost.chat.ReadState;
import io.roost.platform.store.Jdbc;
import io.roost.platform.store.StatementFailed;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Receipts as cursors on the conversation rows, never an update of message rows: the owner's
 * {@code delivered_seq} / {@code read_seq}, mirrored on the peer's row as {@code peer_delivered_seq}
 * / {@code peer_read_seq} so the sender's devices find their receipts on their own side. Every
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

    public Optional<ReadView> readView(long owner, long peer) {
        return Jdbc.first(query("""
                SELECT c.read_seq, c.last_seq, c.unread, coalesce(u.read_receipts, true)
                FROM chat_conversation c LEFT JOIN chat_user u ON u.uid = c.owner_uid
                WHERE c.owner_uid = ? AND c.peer_uid = ?""",
                rs -> new ReadView(rs.getLong(1), rs.getLong(2), rs.getInt(3), rs.getBoolean(4)), owner, peer));
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
     * Moves each owner's delivered cursor forward (never past the last message) and mirrors it on
     * the peer's row; returns the cursors that moved, at their new position. One cursor per
     * (owner, peer) in {@code acks}.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public List<Cursor> advanceDelivered(List<Cursor> acks) {
        int n = acks.size();
        Long[] owners = new Long[n], peers = new Long[n], seqs = new Long[n];
        for (int i = 0; i < n; i++) {
            owners[i] = acks.get(i).owner();
            peers[i] = acks.get(i).peer();
            seqs[i] = acks.get(i).seq();
        }
        return query("""
                WITH a AS (SELECT * FROM unnest(?::int8[], ?::int8[], ?::int8[]) AS a(owner_uid, peer_uid, seq)),
                mine AS (
                    UPDATE chat_conversation c SET delivered_seq = least(a.seq, c.last_seq)
                    FROM a WHERE c.owner_uid = a.owner_uid AND c.peer_uid = a.peer_uid AND c.delivered_seq < least(a.seq, c.last_seq)
                    RETURNING c.owner_uid, c.peer_uid, c.delivered_seq),
                theirs AS (
                    UPDATE chat_conversation p SET peer_delivered_seq = m.delivered_seq
                    FROM mine m WHERE p.owner_uid = m.peer_uid AND p.peer_uid = m.owner_uid AND p.peer_delivered_seq < m.delivered_seq)
                SELECT owner_uid, peer_uid, delivered_seq FROM mine""",
                rs -> new Cursor(rs.getLong(1), rs.getLong(2), rs.getLong(3)), owners, peers, seqs);
    }

    /**
     * Moves the reader's read cursor to {@code seq} (at most the last message; reading implies
     * delivered) and recounts what is still unread after it: the peer's messages and system
     * messages above the cursor that the reader has not deleted. Empty if the cursor was already there.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public Optional<ReadState> advanceRead(long reader, long peer, long seq, long syncVersion) {
        return Jdbc.first(query("""
                UPDATE chat_conversation c SET read_seq = least(?, c.last_seq), delivered_seq = greatest(c.delivered_seq, least(?, c.last_seq)),
                    unread = (SELECT count(*) FROM chat_timeline t
                              WHERE t.owner_uid = c.owner_uid AND t.peer_uid = c.peer_uid AND t.seq > least(?, c.last_seq)
                                AND t.sender_uid <> c.owner_uid AND NOT t.deleted_for_owner),
                    sync_version = ?, updated_at = now()
                WHERE c.owner_uid = ? AND c.peer_uid = ? AND c.read_seq < least(?, c.last_seq)
                RETURNING c.read_seq, c.unread""",
                rs -> new ReadState(rs.getLong(1), rs.getInt(2)), seq, seq, seq, syncVersion, reader, peer, seq));
    }

    /** Mirrors the reader's read cursor on the peer's row (the read receipt the peer's devices sync). */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void mirrorRead(long reader, long peer, long readSeq, long peerSyncVersion) {
        update("""
                UPDATE chat_conversation SET peer_read_seq = ?, peer_delivered_seq = greatest(peer_delivered_seq, ?),
                    sync_version = ?, updated_at = now()
                WHERE owner_uid = ? AND peer_uid = ? AND peer_read_seq < ?""",
                readSeq, readSeq, peerSyncVersion, peer, reader, readSeq);
    }

    private <T> List<T> query(String sql, Jdbc.Row<T> row, Object... params) {
        return Jdbc.query(dataSource, e -> new StatementFailed("chat receipt", e), sql, row, params);
    }

    private int update(String sql, Object... params) {
        return Jdbc.update(dataSource, e -> new StatementFailed("chat receipt", e), sql, params);
    }
}
