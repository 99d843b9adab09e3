package io.roost.chat.store;

import io.roost.platform.store.Jdbc;
import io.roost.platform.store.StatementFailed;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The statements of a batch of sends, one statement per step for the whole batch, each taking its
 * row locks in key order (sendId keys, then pairs, then users): two batches, on one node or two,
 * always lock in the same order and never deadlock. Rows of the single-row steps
 * ({@link ChatStore}) use the same tables and the same order.
 */
@Stateless
@TransactionAttribute(TransactionAttributeType.MANDATORY)
public class SendBatchStore {

    /** A sendId's key: a sendId is unique per sending device. */
    public record SendKey(long sender, String deviceKey, String sendId) {
    }

    /** A sendId to claim: its key, the message id it will answer, and what it was sent with. */
    public record Claim(SendKey key, long msgId, long peer, byte[] bodyHash) {
    }

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    /** The stored answers of these sendIds, by key (resends); reads only. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public Map<SendKey, ChatStore.SendRow> findSends(List<SendKey> keys) {
        Map<SendKey, ChatStore.SendRow> found = new HashMap<>();
        query("""
                SELECT s.sender_uid, s.device_key, s.send_id, s.msg_id, s.peer_uid, s.seq, s.body_hash, s.created_at
                FROM chat_send s JOIN unnest(?::int8[], ?::varchar[], ?::varchar[]) AS k(u, d, i)
                  ON s.sender_uid = k.u AND s.device_key = k.d AND s.send_id = k.i""",
                rs -> found.put(key(rs), new ChatStore.SendRow(rs.getLong(4), rs.getLong(5), rs.getLong(6), rs.getBytes(7),
                        rs.getObject(8, OffsetDateTime.class))),
                senders(keys), devices(keys), sendIds(keys));
        return found;
    }

    /**
     * Claims the sendIds (distinct keys) for this transaction; returns the keys it got. A key a
     * concurrent transaction claimed waits for it: taken if it commits, ours if it rolls back.
     */
    public Set<SendKey> claimAll(List<Claim> claims) {
        List<SendKey> keys = claims.stream().map(Claim::key).toList();
        Set<SendKey> claimed = new HashSet<>();
        query("""
                INSERT INTO chat_send (sender_uid, device_key, send_id, msg_id, peer_uid, body_hash)
                SELECT u, d, i, m, p, h FROM unnest(?::int8[], ?::varchar[], ?::varchar[], ?::int8[], ?::int8[], ?::bytea[])
                    AS k(u, d, i, m, p, h)
                ORDER BY u, d, i
                ON CONFLICT DO NOTHING
                RETURNING sender_uid, device_key, send_id""",
                rs -> claimed.add(key(rs)), senders(keys), devices(keys), sendIds(keys),
                claims.stream().map(Claim::msgId).toArray(Long[]::new), claims.stream().map(Claim::peer).toArray(Long[]::new),
                claims.stream().map(Claim::bodyHash).toArray(byte[][]::new));
        return claimed;
    }

    /**
     * Takes {@code counts[i]} seqs of the conversation {@code (lows[i], highs[i])} (distinct pairs),
     * in pair order; returns each pair's new last seq, by {@code List.of(low, high)}. The batch's
     * messages of a pair get last - count + 1 … last.
     */
    public Map<List<Long>, Long> takeSeqs(Long[] lows, Long[] highs, Integer[] counts) {
        Map<List<Long>, Long> last = new HashMap<>();
        query("""
                INSERT INTO chat_pair AS p (low_uid, high_uid, last_seq)
                SELECT l, h, n FROM unnest(?::int8[], ?::int8[], ?::int4[]) AS k(l, h, n) ORDER BY l, h
                ON CONFLICT (low_uid, high_uid) DO UPDATE SET last_seq = p.last_seq + EXCLUDED.last_seq, updated_at = now()
                RETURNING low_uid, high_uid, last_seq""",
                rs -> last.put(List.of(rs.getLong(1), rs.getLong(2)), rs.getLong(3)), lows, highs, counts);
        return last;
    }

    /** Moves each user's sync version on by {@code steps[i]} (distinct uids, in uid order); the new version by uid. */
    public Map<Long, Long> bumpVersions(Long[] uids, Integer[] steps) {
        Map<Long, Long> versions = new HashMap<>();
        query("""
                INSERT INTO chat_user AS u (uid, sync_version)
                SELECT uid, n FROM unnest(?::int8[], ?::int4[]) AS t(uid, n) ORDER BY uid
                ON CONFLICT (uid) DO UPDATE SET sync_version = u.sync_version + EXCLUDED.sync_version
                RETURNING uid, sync_version""", rs -> versions.put(rs.getLong(1), rs.getLong(2)), uids, steps);
        return versions;
    }

    /** Stores each claimed sendId's seq; their (common) creation time, by key. */
    public Map<SendKey, OffsetDateTime> completeAll(List<SendKey> keys, List<Long> seqs) {
        Map<SendKey, OffsetDateTime> times = new HashMap<>();
        query("""
                UPDATE chat_send s SET seq = k.q FROM unnest(?::int8[], ?::varchar[], ?::varchar[], ?::int8[]) AS k(u, d, i, q)
                WHERE s.sender_uid = k.u AND s.device_key = k.d AND s.send_id = k.i
                RETURNING s.sender_uid, s.device_key, s.send_id, s.created_at""",
                rs -> times.put(key(rs), rs.getObject(4, OffsetDateTime.class)), senders(keys), devices(keys), sendIds(keys),
                seqs.toArray(Long[]::new));
        return times;
    }

    /** The key in a result's first three columns (sender_uid, device_key, send_id). */
    private static SendKey key(java.sql.ResultSet rs) throws java.sql.SQLException {
        return new SendKey(rs.getLong(1), rs.getString(2), rs.getString(3));
    }

    private static Long[] senders(List<SendKey> keys) {
        return keys.stream().map(SendKey::sender).toArray(Long[]::new);
    }

    private static String[] devices(List<SendKey> keys) {
        return keys.stream().map(SendKey::deviceKey).toArray(String[]::new);
    }

    private static String[] sendIds(List<SendKey> keys) {
        return keys.stream().map(SendKey::sendId).toArray(String[]::new);
    }

    private <T> List<T> query(String sql, Jdbc.Row<T> row, Object... params) {
        return Jdbc.query(dataSource, e -> new StatementFailed("chat send batch", e), sql, row, params);
    }
}
