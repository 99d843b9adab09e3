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

    /** A sendId to claim: its key, the message id it will answer, and what it was sent with. */
    public record Claim(long sender, String deviceKey, String sendId, long msgId, long peer, byte[] bodyHash) {

        /** The key of a sendId as the batch and the table know it. */
        public List<Object> key() {
            return List.of(sender, deviceKey, sendId);
        }
    }

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    /** The stored answers of these sendIds, by key (resends); reads only. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public Map<List<Object>, ChatStore.SendRow> findSends(List<Claim> claims) {
        int n = claims.size();
        Long[] senders = new Long[n];
        String[] devices = new String[n], sendIds = new String[n];
        for (int i = 0; i < n; i++) {
            senders[i] = claims.get(i).sender();
            devices[i] = claims.get(i).deviceKey();
            sendIds[i] = claims.get(i).sendId();
        }
        Map<List<Object>, ChatStore.SendRow> found = new HashMap<>();
        query("""
                SELECT s.sender_uid, s.device_key, s.send_id, s.msg_id, s.peer_uid, s.seq, s.body_hash, s.created_at
                FROM chat_send s JOIN unnest(?::int8[], ?::varchar[], ?::varchar[]) AS k(u, d, i)
                  ON s.sender_uid = k.u AND s.device_key = k.d AND s.send_id = k.i""",
                rs -> found.put(List.of(rs.getLong(1), rs.getString(2), rs.getString(3)), new ChatStore.SendRow(rs.getLong(4),
                        rs.getLong(5), rs.getLong(6), rs.getBytes(7), rs.getObject(8, OffsetDateTime.class))),
                senders, devices, sendIds);
        return found;
    }

    /**
     * Claims the sendIds (distinct keys) for this transaction; returns the keys it got. A key a
     * concurrent transaction claimed waits for it: taken if it commits, ours if it rolls back.
     */
    public Set<List<Object>> claimAll(List<Claim> claims) {
        int n = claims.size();
        Long[] senders = new Long[n], msgIds = new Long[n], peers = new Long[n];
        String[] devices = new String[n], sendIds = new String[n];
        byte[][] hashes = new byte[n][];
        for (int i = 0; i < n; i++) {
            Claim c = claims.get(i);
            senders[i] = c.sender();
            devices[i] = c.deviceKey();
            sendIds[i] = c.sendId();
            msgIds[i] = c.msgId();
            peers[i] = c.peer();
            hashes[i] = c.bodyHash();
        }
        Set<List<Object>> claimed = new HashSet<>();
        query("""
                INSERT INTO chat_send (sender_uid, device_key, send_id, msg_id, peer_uid, body_hash)
                SELECT u, d, i, m, p, h FROM unnest(?::int8[], ?::varchar[], ?::varchar[], ?::int8[], ?::int8[], ?::bytea[])
                    AS k(u, d, i, m, p, h)
                ORDER BY u, d, i
                ON CONFLICT DO NOTHING
                RETURNING sender_uid, device_key, send_id""",
                rs -> claimed.add(List.of(rs.getLong(1), rs.getString(2), rs.getString(3))),
                senders, devices, sendIds, msgIds, peers, hashes);
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
    public Map<List<Object>, OffsetDateTime> completeAll(List<Claim> claims, List<Long> seqs) {
        int n = claims.size();
        Long[] senders = new Long[n], seqArray = seqs.toArray(Long[]::new);
        String[] devices = new String[n], sendIds = new String[n];
        for (int i = 0; i < n; i++) {
            senders[i] = claims.get(i).sender();
            devices[i] = claims.get(i).deviceKey();
            sendIds[i] = claims.get(i).sendId();
        }
        Map<List<Object>, OffsetDateTime> times = new HashMap<>();
        query("""
                UPDATE chat_send s SET seq = k.q FROM unnest(?::int8[], ?::varchar[], ?::varchar[], ?::int8[]) AS k(u, d, i, q)
                WHERE s.sender_uid = k.u AND s.device_key = k.d AND s.send_id = k.i
                RETURNING s.sender_uid, s.device_key, s.send_id, s.created_at""",
                rs -> times.put(List.of(rs.getLong(1), rs.getString(2), rs.getString(3)), rs.getObject(4, OffsetDateTime.class)),
                senders, devices, sendIds, seqArray);
        return times;
    }

    private <T> List<T> query(String sql, Jdbc.Row<T> row, Object... params) {
        return Jdbc.query(dataSource, e -> new StatementFailed("chat send batch", e), sql, row, params);
    }
}
