package io.roost.chat.store;

import io.roost.platform.metrics.StoreTimed;
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
import java.util.function.BinaryOperator;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * The sendId claim of a batch of sends, in one statement for the whole batch, taking the keys'
 * locks in key order: the first of a send batch's row locks (sendId keys, then conversation rows
 * in (owner, peer) order, {@link ChatStore#upsertConversationsAndInsertTimeline}), so two batches,
 * on one node or two, always lock in the same order and never deadlock.
 */
@StoreTimed
@Stateless
@TransactionAttribute(TransactionAttributeType.MANDATORY)
public class SendBatchStore {

    /** A sendId's key: a sendId is unique per sending device. */
    public record SendKey(long sender, String deviceKey, String sendId) {
    }

    /** A sendId to claim: its key, the message id it will answer, what it was sent with, and whether blocks apply (not to a system message). */
    public record Claim(SendKey key, long msgId, long peer, byte[] bodyHash, boolean blocksApply) {
    }

    /** The claim's statement; {@code %s} is the checks' SQL ({@link Checks#of}). */
    private static final String CLAIM = """
                WITH input AS MATERIALIZED (
                    SELECT u, d, i, m, p, h, %s AS allowed
                    FROM unnest(?::int8[], ?::varchar[], ?::varchar[], ?::int8[], ?::int8[], ?::bytea[], ?::bool[]) AS k(u, d, i, m, p, h, b)),
                claimed AS (
                    INSERT INTO chat_send (sender_uid, device_key, send_id, msg_id, peer_uid, body_hash)
                    SELECT u, d, i, m, p, h FROM input WHERE allowed
                    ORDER BY u, d, i
                    ON CONFLICT DO NOTHING
                    RETURNING sender_uid, device_key, send_id, created_at)
                SELECT sender_uid, device_key, send_id, created_at FROM claimed
                UNION ALL
                SELECT u, d, i, NULL FROM input WHERE NOT allowed""";

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    /**
     * A stored sendId with its message's seq, read from the sender's timeline copy (the seq is
     * taken after the claim, and writing it back to chat_send would cost an update per message).
     */
    static final String SEND_WITH_SEQ =
            "chat_send s LEFT JOIN chat_timeline t ON t.owner_uid = s.sender_uid AND t.msg_id = s.msg_id";
    /** The columns of a {@link ChatStore.SendRow}, from {@link #SEND_WITH_SEQ}. */
    static final String SEND_COLUMNS = "s.msg_id, s.peer_uid, coalesce(t.seq, 0), s.body_hash, s.created_at";

    /** The stored answers of these sendIds, by key (resends); reads only. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public Map<SendKey, ChatStore.SendRow> findSends(List<SendKey> keys) {
        Map<SendKey, ChatStore.SendRow> found = new HashMap<>();
        query("""
                SELECT s.sender_uid, s.device_key, s.send_id, %s FROM %s
                JOIN unnest(?::int8[], ?::varchar[], ?::varchar[]) AS k(u, d, i)
                  ON s.sender_uid = k.u AND s.device_key = k.d AND s.send_id = k.i""".formatted(SEND_COLUMNS, SEND_WITH_SEQ),
                rs -> found.put(key(rs), sendRow(rs, 4)), senders(keys), devices(keys), sendIds(keys));
        return found;
    }

    /** A {@link ChatStore.SendRow} from {@link #SEND_COLUMNS}, starting at column {@code first}. */
    static ChatStore.SendRow sendRow(java.sql.ResultSet rs, int first) throws java.sql.SQLException {
        return new ChatStore.SendRow(rs.getLong(first), rs.getLong(first + 1), rs.getLong(first + 2), rs.getBytes(first + 3),
                rs.getObject(first + 4, OffsetDateTime.class));
    }

    /**
     * The claim's statement with the other modules' checks a message must pass before it is
     * claimed, given as SQL over the batch's columns: {@code active} of a user (an SQL expression),
     * {@code blockedEitherWay} of two users. Run inside the claim's statement, they cost no round
     * trip of their own on the send writer's serial path. Built once ({@link #of}), not per batch.
     */
    public record Checks(String claimSql) {

        public static Checks of(UnaryOperator<String> active, BinaryOperator<String> blockedEitherWay) {
            // over the claim's columns: sender k.u, peer k.p, and k.b, whether blocks apply (not to a system message)
            String allowed = active.apply("k.u") + " AND " + active.apply("k.p") + " AND (NOT k.b OR NOT "
                    + blockedEitherWay.apply("k.u", "k.p") + ")";
            return new Checks(CLAIM.formatted(allowed));
        }
    }

    /** What a batch's claim got: the keys it claimed with their creation time, and the keys the checks refused (nothing claimed for them). */
    public record Claimed(Map<SendKey, OffsetDateTime> times, Set<SendKey> refused) {
    }

    /**
     * Checks the messages and claims the sendIds (distinct keys) of those that pass, for this
     * transaction, in one statement (the checks and the claim cost one round trip on the send
     * writer's serial path, not two). A key a concurrent transaction claimed waits for it: taken
     * if it commits, ours if it rolls back. Returns the claimed keys with their creation time (the
     * transaction's, common to all) and the refused keys.
     */
    public Claimed claim(List<Claim> claims, Checks checks) {
        List<SendKey> keys = claims.stream().map(Claim::key).toList();
        Map<SendKey, OffsetDateTime> times = new HashMap<>();
        Set<SendKey> refused = new HashSet<>();
        query(checks.claimSql(),
                rs -> {
                    if (rs.getObject(4) == null) {
                        refused.add(key(rs));
                    } else {
                        times.put(key(rs), rs.getObject(4, OffsetDateTime.class));
                    }
                    return null;
                }, senders(keys), devices(keys), sendIds(keys),
                claims.stream().map(Claim::msgId).toArray(Long[]::new), claims.stream().map(Claim::peer).toArray(Long[]::new),
                claims.stream().map(Claim::bodyHash).toArray(byte[][]::new), claims.stream().map(Claim::blocksApply).toArray(Boolean[]::new));
        return new Claimed(times, refused);
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
