package io.roost.chat.store;

import io.roost.platform.metrics.StoreTimed;
import io.roost.chat.ChatMessage;
import io.roost.chat.ChatUserSettings;
import io.roost.chat.Conversation;
import io.roost.chat.Cursor;
import io.roost.platform.ids.Snowflake;
import io.roost.platform.json.Jsonp;
import io.roost.platform.store.Jdbc;
import io.roost.platform.store.StatementFailed;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import javax.sql.DataSource;

/**
 * One-to-one messages: one statement per step of a send, in the lock order chat_send key →
 * chat_conversation ((owner, peer) order); the timeline rows are new rows and wait for nobody.
 */
@StoreTimed
@Stateless
@TransactionAttribute(TransactionAttributeType.SUPPORTS) // reads join a caller's transaction, never begin one; writers say theirs
public class ChatStore {

    /** A stored sendId's answer; its seq is the sender's timeline copy's (0 if retention purged it). */
    public record SendRow(long msgId, long peer, long seq, byte[] bodyHash, OffsetDateTime createdAt) {
    }

    /**
     * One timeline row to insert (the sender's copy or the recipient's). Its seq is given from the
     * conversation's new last seq: 0 for the batch's newest message in the conversation, -1 for the
     * one before it, and so on (the last seq itself is known once the conversation row is locked).
     */
    public record TimelineRow(long owner, long peer, long seqFromLast, long msgId, long senderUid, String sendId, String type,
                              String bodyJson, Long quoteMsgId, int priority) {
    }

    /**
     * One side's conversation change: how many messages the batch adds to it (its last seq grows by
     * that many), its newest message, how many of the new messages are unread for this owner, and
     * the rank of its sync version in this transaction.
     */
    public record ConversationChange(long owner, long peer, int added, long msgId, long senderUid, String preview,
                                     int unread, int versionRank) {

        public ConversationChange withRank(int rank) {
            return new ConversationChange(owner, peer, added, msgId, senderUid, preview, unread, rank);
        }
    }

    /** What a send batch's conversation rows became: each row's new last seq by {@code List.of(owner, peer)}, and the delivered cursors that moved. */
    public record Upserted(Map<List<Long>, Long> lastSeqs, List<Cursor> moved) {
    }

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    // ---- sends ----

    public Optional<SendRow> findSend(long sender, String deviceKey, String sendId) {
        return Jdbc.first(query("""
                SELECT %s FROM %s
                WHERE s.sender_uid = ? AND s.device_key = ? AND s.send_id = ?""".formatted(SendBatchStore.SEND_COLUMNS,
                SendBatchStore.SEND_WITH_SEQ), ChatStore::send, sender, deviceKey, sendId));
    }

    /** An owner's conversations changed after a version, and the sync horizon they were read at. */
    public record Changes(List<Conversation> rows, long horizon) {
    }

    /**
     * A send batch's conversation rows (distinct, locked in (owner, peer) order: last seq + the
     * messages added, newest message, unread + the new unread ones, the owner's version), then its
     * timeline rows with their seqs (from the new last seq), in one statement: one round trip less
     * on the send writer's serial path. Both sides of a conversation are in the batch and add the
     * same count, so they keep the same last seq, and the first of them locked serialises the
     * conversation's senders: its seqs are gap-free and strictly increasing. {@code delivered}:
     * acknowledgements held for some of these rows, which move their delivered cursors in the same
     * update (never past the row's last message before this batch). Returns the new last seqs and
     * the cursors that moved, at their new position (compared with the statement's snapshot).
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public Upserted upsertConversationsAndInsertTimeline(List<ConversationChange> changes, List<TimelineRow> rows,
                                                         List<Cursor> delivered) {
        int n = rows.size();
        Long[] owners = new Long[n], peers = new Long[n], seqs = new Long[n], msgIds = new Long[n], senders = new Long[n],
                quotes = new Long[n];
        String[] sendIds = new String[n], types = new String[n], bodies = new String[n];
        Integer[] priorities = new Integer[n];
        for (int i = 0; i < n; i++) {
            TimelineRow r = rows.get(i);
            owners[i] = r.owner();
            peers[i] = r.peer();
            seqs[i] = r.seqFromLast();
            msgIds[i] = r.msgId();
            senders[i] = r.senderUid();
            sendIds[i] = r.sendId();
            types[i] = r.type();
            bodies[i] = r.bodyJson();
            quotes[i] = r.quoteMsgId();
            priorities[i] = r.priority();
        }
        int m = changes.size();
        Long[] cOwners = new Long[m], cPeers = new Long[m], cMsgIds = new Long[m], cSenders = new Long[m];
        String[] previews = new String[m];
        Integer[] added = new Integer[m], unread = new Integer[m], ranks = new Integer[m];
        for (int i = 0; i < m; i++) {
            ConversationChange c = changes.get(i);
            cOwners[i] = c.owner();
            cPeers[i] = c.peer();
            added[i] = c.added();
            cMsgIds[i] = c.msgId();
            cSenders[i] = c.senderUid();
            previews[i] = c.preview();
            unread[i] = c.unread();
            ranks[i] = c.versionRank();
        }
        Map<List<Long>, Long> lastSeqs = new HashMap<>();
        List<Cursor> moved = new ArrayList<>();
        query(UPSERT_CONVERSATIONS_AND_INSERT_TIMELINE, rs -> {
                    lastSeqs.put(List.of(rs.getLong(1), rs.getLong(2)), rs.getLong(3));
                    if (rs.getBoolean(5)) {
                        moved.add(new Cursor(rs.getLong(1), rs.getLong(2), rs.getLong(4)));
                    }
                    return null;
                }, delivered.stream().map(Cursor::owner).toArray(Long[]::new),
                delivered.stream().map(Cursor::peer).toArray(Long[]::new), delivered.stream().map(Cursor::seq).toArray(Long[]::new),
                cOwners, cPeers, added, cMsgIds, cSenders, previews, unread, ranks,
                owners, peers, seqs, msgIds, senders, sendIds, types, bodies, quotes, priorities);
        return new Upserted(lastSeqs, moved);
    }

    // ---- reads ----

    /** Whether the message is in the owner's timeline of this conversation, neither deleted there nor recalled. */
    public boolean visible(long owner, long peer, long msgId) {
        return !query("""
                SELECT 1 FROM chat_timeline WHERE owner_uid = ? AND msg_id = ? AND peer_uid = ? AND NOT deleted_for_owner
                    AND NOT recalled""",
                rs -> 1, owner, msgId, peer).isEmpty();
    }

    /** Messages after {@code afterSeq}, ascending. */
    public List<ChatMessage> messagesAfter(long owner, long peer, long afterSeq, int limit) {
        return query(MESSAGE_SELECT + " WHERE owner_uid = ? AND peer_uid = ? AND seq > ? ORDER BY seq LIMIT ?",
                ChatStore::message, owner, peer, afterSeq, limit);
    }

    /** Messages before {@code beforeSeq}, descending (newest first). */
    public List<ChatMessage> messagesBefore(long owner, long peer, long beforeSeq, int limit) {
        return query(MESSAGE_SELECT + " WHERE owner_uid = ? AND peer_uid = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
                ChatStore::message, owner, peer, beforeSeq, limit);
    }

    /**
     * The owner's conversations changed after version {@code since}, in version order, with the
     * horizon of the statement's own snapshot: the oldest transaction id still running ×
     * {@value io.roost.chat.SyncVersions#RANKS} (no version below it can appear any more).
     */
    public Changes conversationsSince(long owner, long since, int limit) {
        long[] horizon = {Long.MAX_VALUE}; // no rows: nothing to hold back
        // the horizon in the same statement, so from the same snapshot as the rows
        List<Conversation> rows = query("SELECT " + CONVERSATION_COLUMNS + ", pg_snapshot_xmin(pg_current_snapshot())::text::int8 * "
                + io.roost.chat.SyncVersions.RANKS + CONVERSATION_FROM + " WHERE c.owner_uid = ? AND c.sync_version > ? ORDER BY c.sync_version LIMIT ?",
                rs -> {
                    horizon[0] = rs.getLong(14);
                    return conversation(rs);
                }, owner, since, limit);
        return new Changes(rows, horizon[0]);
    }

    public Optional<Conversation> conversation(long owner, long peer) {
        return Jdbc.first(query(CONVERSATION_SELECT + " WHERE c.owner_uid = ? AND c.peer_uid = ?", ChatStore::conversation, owner, peer));
    }

    // ---- delete for me ----

    /**
     * Marks one message of the owner's timeline deleted (a tombstone) and gives the conversation a
     * new sync version, one unread fewer if the owner had not read it; false if there is no such
     * message. Deleting a tombstone again changes nothing. Locks the timeline row, then the
     * conversation row (a send locks no existing timeline row).
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public boolean deleteForOwner(long owner, long peer, long seq, int versionRank) {
        // whether it counted as unread: a system message does for both; a recalled one left the count when it was recalled
        List<Boolean> countedUnread = query("""
                UPDATE chat_timeline SET deleted_for_owner = true, %s
                WHERE owner_uid = ? AND peer_uid = ? AND seq = ? AND NOT deleted_for_owner
                RETURNING sender_uid <> owner_uid AND NOT recalled""".formatted(ERASED), rs -> rs.getBoolean(1), owner, peer, seq);
        if (countedUnread.isEmpty()) {
            // a tombstone already, or no such message
            return message(owner, peer, seq).isPresent();
        }
        // the owner's copy no longer names a file: its downloads end with it
        update("""
                DELETE FROM chat_media cm USING chat_timeline t
                WHERE t.owner_uid = ? AND t.peer_uid = ? AND t.seq = ? AND cm.msg_id = t.msg_id AND cm.owner_uid = t.owner_uid""",
                owner, peer, seq);
        update(DELETED_IN_CONVERSATION, versionRank, seq, countedUnread.get(0), seq, owner, peer);
        return true;
    }

    // ---- housekeeping ----

    /** Deletes up to {@code batch} sendIds older than {@code age}; how many. */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int purgeSends(Duration age, int batch) {
        return update("""
                DELETE FROM chat_send WHERE ctid = ANY (ARRAY(
                    SELECT ctid FROM chat_send WHERE created_at < now() - make_interval(secs => ?) LIMIT ?))""",
                age.toMillis() / 1000.0, batch);
    }

    // ---- catch-up ----

    /** The newest messages after {@code afterSeq}, descending (newest first): a long-away device's catch-up. */
    public List<ChatMessage> newestAfter(long owner, long peer, long afterSeq, int limit) {
        return query(MESSAGE_SELECT + " WHERE owner_uid = ? AND peer_uid = ? AND seq > ? ORDER BY seq DESC LIMIT ?",
                ChatStore::message, owner, peer, afterSeq, limit);
    }

    public Optional<ChatMessage> message(long owner, long peer, long seq) {
        return Jdbc.first(query(MESSAGE_SELECT + " WHERE owner_uid = ? AND peer_uid = ? AND seq = ?", ChatStore::message, owner, peer, seq));
    }

    /** The newest of {@code count} messages of one conversation that no device of its owner acknowledged. */
    public record Unacknowledged(ChatMessage newest, int count) {
    }

    /**
     * For each owner, per conversation: the peer's messages above the owner's delivered cursor
     * whose id is at least that owner's {@code firstMsgIds} entry, not deleted or recalled; the
     * newest of them and how many. The conversation rows filter first (something newer than the
     * window and not acknowledged), so an owner's quiet conversations cost one index entry each.
     */
    public List<Unacknowledged> unacknowledgedSince(Long[] owners, Long[] firstMsgIds) {
        return query("""
                SELECT DISTINCT ON (owner_uid, peer_uid) %s, count(*) OVER (PARTITION BY owner_uid, peer_uid)
                FROM (SELECT t.* FROM unnest(?::int8[], ?::int8[]) AS l(owner_uid, first_msg_id)
                      JOIN chat_conversation c ON c.owner_uid = l.owner_uid AND c.last_seq > c.delivered_seq
                          AND c.last_msg_id >= l.first_msg_id
                      JOIN chat_timeline t ON t.owner_uid = c.owner_uid AND t.peer_uid = c.peer_uid AND t.seq > c.delivered_seq
                      WHERE t.msg_id >= l.first_msg_id AND t.sender_uid <> t.owner_uid AND NOT t.deleted_for_owner
                          AND NOT t.recalled) m
                ORDER BY owner_uid, peer_uid, seq DESC""".formatted(MESSAGE_COLUMNS),
                rs -> new Unacknowledged(message(rs), rs.getInt(14)), owners, firstMsgIds);
    }

    // ---- recall ----

    /**
     * Marks both copies of the conversation's message {@code seq} recalled; for each copy that
     * changed, by owner, whether it counted as unread for its owner (none: it already was). A
     * concurrent recall of the message waits here on the rows, then finds them recalled and
     * changes nothing.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public Map<Long, Boolean> markRecalled(long a, long b, long seq) {
        Map<Long, Boolean> counted = new HashMap<>();
        // per copy, whether it counted as unread for its owner: someone else's message, not deleted by the owner already
        query("""
                UPDATE chat_timeline SET recalled = true, %s
                WHERE owner_uid = ANY (?::int8[]) AND peer_uid = ANY (?::int8[]) AND seq = ? AND NOT recalled
                RETURNING owner_uid, sender_uid <> owner_uid AND NOT deleted_for_owner""".formatted(ERASED),
                rs -> counted.put(rs.getLong(1), rs.getBoolean(2)), new Long[] {a, b}, new Long[] {a, b}, seq);
        // neither copy names a file any more
        update("""
                DELETE FROM chat_media cm USING chat_timeline t
                WHERE t.owner_uid = ANY (?::int8[]) AND t.peer_uid = ANY (?::int8[]) AND t.seq = ? AND cm.msg_id = t.msg_id""",
                new Long[] {a, b}, new Long[] {a, b}, seq);
        return counted;
    }

    /**
     * One side's conversation row after a recall: a new sync version; the preview says so if it
     * was the last message; one unread fewer if it counted as unread for this owner and was not read yet.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void recalledInConversation(long owner, long peer, long seq, int versionRank, boolean wasUnread, String preview) {
        update(RECALLED_IN_CONVERSATION, versionRank, seq, preview, wasUnread, seq, owner, peer);
    }

    // ---- stranger limit ----

    /**
     * How many messages {@code sender} sent {@code peer}, counted up to {@code cap}: a range of the
     * sender's own timeline (its primary key), stopped at the cap however long the conversation is.
     */
    public int sentTo(long sender, long peer, int cap) {
        return query("""
                SELECT count(*) FROM (SELECT 1 FROM chat_timeline WHERE owner_uid = ? AND peer_uid = ? AND sender_uid = ? LIMIT ?) s""",
                rs -> rs.getInt(1), sender, peer, sender, cap).get(0);
    }

    /**
     * Of these conversations (sender {@code senders[i]} to peer {@code peers[i]}), those whose
     * sender has sent at least {@code limit} messages into them and is not followed by the peer
     * ({@code followsSql}: SQL true where its first user follows its second), as {@code
     * List.of(sender, peer)}: one statement for a send batch, on committed rows.
     */
    public Set<List<Long>> atStrangerLimit(Long[] senders, Long[] peers, int limit, BiFunction<String, String, String> followsSql) {
        return new HashSet<>(query("""
                SELECT p.s, p.r FROM unnest(?::int8[], ?::int8[]) AS p(s, r)
                WHERE NOT %s AND (SELECT count(*) FROM (SELECT 1 FROM chat_timeline
                    WHERE owner_uid = p.s AND peer_uid = p.r AND sender_uid = p.s LIMIT ?) t) >= ?""".formatted(followsSql.apply("p.r", "p.s")),
                rs -> List.of(rs.getLong(1), rs.getLong(2)), senders, peers, limit, limit));
    }

    // ---- per-user settings ----

    public Optional<ChatUserSettings> userSettings(long uid) {
        return Jdbc.first(query("SELECT read_receipts, push_preview FROM chat_user WHERE uid = ?",
                rs -> new ChatUserSettings(rs.getBoolean(1), rs.getString(2)), uid));
    }

    /**
     * Sets the given settings (null: unchanged), creating the user's row if it has none yet (sync
     * version 0: no conversation change); the settings as they now are.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRED)
    public ChatUserSettings saveUserSettings(long uid, Boolean readReceipts, String pushPreview) {
        return query("""
                INSERT INTO chat_user AS u (uid, read_receipts, push_preview) VALUES (?, COALESCE(?::boolean, true), COALESCE(?::varchar, 'full'))
                ON CONFLICT (uid) DO UPDATE SET read_receipts = COALESCE(?::boolean, u.read_receipts),
                    push_preview = COALESCE(?::varchar, u.push_preview)
                RETURNING read_receipts, push_preview""", rs -> new ChatUserSettings(rs.getBoolean(1), rs.getString(2)),
                uid, readReceipts, pushPreview, readReceipts, pushPreview).get(0);
    }

    // ---- retention ----

    /** The timeline's leaf partitions (splitting them later changes this list, not the purge). */
    public List<String> timelinePartitions() {
        return query("SELECT relid::regclass::text FROM pg_partition_tree('chat_timeline') WHERE isleaf ORDER BY 1",
                rs -> rs.getString(1));
    }

    /**
     * Deletes up to {@code batch} rows older than {@code age} from one partition of the timeline, in
     * a transaction of its own; how many. Older by their msgId, whose time the index that leads
     * with it orders (a message's msgId is taken when it is sent), however the rows lie in the
     * table. By ctid within the one partition: a ctid names a row only inside its own table, never
     * across a partitioned one. The name comes from {@link #timelinePartitions()} (the catalog's own
     * quoting), never from a caller's input.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int purgeTimeline(String partition, Duration age, int batch) {
        if (!partition.matches("[A-Za-z0-9_.\"]+")) {
            throw new IllegalArgumentException("not a partition name: " + partition);
        }
        long firstKept = Snowflake.firstIdAt(System.currentTimeMillis() - age.toMillis());
        // a conversation whose last message goes loses its preview of it too; its rows are locked in key order, as a send's are
        return query("""
                WITH gone AS (
                    DELETE FROM %1$s WHERE ctid = ANY (ARRAY(SELECT ctid FROM %1$s WHERE msg_id < ? LIMIT ?))
                    RETURNING owner_uid, peer_uid, msg_id),
                unnamed AS (
                    DELETE FROM chat_media cm USING gone g WHERE cm.msg_id = g.msg_id AND cm.owner_uid = g.owner_uid),
                previewed AS (
                    SELECT c.owner_uid, c.peer_uid FROM chat_conversation c JOIN gone g
                        ON c.owner_uid = g.owner_uid AND c.peer_uid = g.peer_uid AND c.last_msg_id = g.msg_id
                    WHERE c.last_preview IS NOT NULL ORDER BY c.owner_uid, c.peer_uid FOR UPDATE OF c),
                cleared AS (
                    UPDATE chat_conversation c SET last_preview = NULL FROM previewed p
                    WHERE c.owner_uid = p.owner_uid AND c.peer_uid = p.peer_uid)
                SELECT count(*) FROM gone""".formatted(partition), rs -> rs.getInt(1), firstKept, batch).get(0);
    }

    private static final String UPSERT_CONVERSATIONS_AND_INSERT_TIMELINE = """
                WITH held AS MATERIALIZED (
                    SELECT o, p, d FROM unnest(?::int8[], ?::int8[], ?::int8[]) AS h(o, p, d)),
                before AS MATERIALIZED (
                    SELECT c.owner_uid, c.peer_uid, c.delivered_seq FROM chat_conversation c JOIN held h ON c.owner_uid = h.o AND c.peer_uid = h.p),
                upserted AS (
                    INSERT INTO chat_conversation AS c (owner_uid, peer_uid, last_seq, last_msg_id, last_sender_uid, last_preview, unread,
                        sync_version, updated_at)
                    SELECT o, p, n, m, f, v, u, %s, now()
                    FROM unnest(?::int8[], ?::int8[], ?::int4[], ?::int8[], ?::int8[], ?::varchar[], ?::int4[], ?::int4[])
                        AS x(o, p, n, m, f, v, u, r)
                    ORDER BY o, p
                    ON CONFLICT (owner_uid, peer_uid) DO UPDATE SET last_seq = c.last_seq + EXCLUDED.last_seq,
                        last_msg_id = EXCLUDED.last_msg_id, last_sender_uid = EXCLUDED.last_sender_uid, last_preview = EXCLUDED.last_preview,
                        unread = c.unread + EXCLUDED.unread, sync_version = EXCLUDED.sync_version, updated_at = now(),
                        delivered_seq = greatest(c.delivered_seq,
                            least(coalesce((SELECT h.d FROM held h WHERE h.o = c.owner_uid AND h.p = c.peer_uid), 0), c.last_seq))
                    RETURNING c.owner_uid, c.peer_uid, c.last_seq, c.delivered_seq),
                timeline AS (
                    INSERT INTO chat_timeline (owner_uid, peer_uid, seq, msg_id, sender_uid, send_id, msg_type, body, quote_msg_id, priority)
                    SELECT x.o, x.p, u.last_seq + x.s, x.m, x.f, x.i, x.t, x.b::jsonb, x.q, x.r::smallint
                    FROM unnest(?::int8[], ?::int8[], ?::int8[], ?::int8[], ?::int8[], ?::varchar[], ?::varchar[], ?::varchar[],
                                ?::int8[], ?::int4[]) AS x(o, p, s, m, f, i, t, b, q, r)
                    JOIN upserted u ON u.owner_uid = x.o AND u.peer_uid = x.p)
                SELECT u.owner_uid, u.peer_uid, u.last_seq, u.delivered_seq, u.delivered_seq > coalesce(b.delivered_seq, u.delivered_seq)
                FROM upserted u LEFT JOIN before b ON b.owner_uid = u.owner_uid AND b.peer_uid = u.peer_uid""".formatted(SyncVersionSql.of("r"));
    /** A message that counted as unread ({@code ?}: whether it did, then its seq) leaves the count when it goes. */
    private static final String ONE_UNREAD_FEWER = "unread = CASE WHEN ?::boolean AND ? > read_seq AND unread > 0 THEN unread - 1 ELSE unread END";
    private static final String DELETED_IN_CONVERSATION = """
                UPDATE chat_conversation SET sync_version = %s, updated_at = now(),
                    last_preview = CASE WHEN last_seq = ? THEN NULL ELSE last_preview END, %s
                WHERE owner_uid = ? AND peer_uid = ?""".formatted(SyncVersionSql.of("?"), ONE_UNREAD_FEWER);
    private static final String RECALLED_IN_CONVERSATION = """
                UPDATE chat_conversation SET sync_version = %s, updated_at = now(),
                    last_preview = CASE WHEN last_seq = ? THEN ? ELSE last_preview END, %s
                WHERE owner_uid = ? AND peer_uid = ?""".formatted(SyncVersionSql.of("?"), ONE_UNREAD_FEWER);

    /**
     * A recalled or deleted copy keeps its row (its seq, that it was recalled or deleted) and loses
     * its content, which nobody may see any more: erased, not only hidden on read.
     */
    private static final String ERASED = "body = '{}', quote_msg_id = NULL";

    private static final String MESSAGE_COLUMNS = """
            owner_uid, peer_uid, seq, msg_id, sender_uid, send_id, msg_type, body::text, quote_msg_id, priority, created_at,
                deleted_for_owner, recalled""";
    private static final String MESSAGE_SELECT = "SELECT " + MESSAGE_COLUMNS + " FROM chat_timeline";

    /** One side of a conversation; how far the peer's devices acknowledged is on the peer's side (its delivered_seq). */
    private static final String CONVERSATION_COLUMNS = """
            c.owner_uid, c.peer_uid, c.last_seq, c.last_msg_id, c.last_sender_uid, c.last_preview, c.unread, c.read_seq,
                c.delivered_seq, c.peer_read_seq, coalesce(p.delivered_seq, 0), c.sync_version, c.updated_at""";
    private static final String CONVERSATION_FROM =
            " FROM chat_conversation c LEFT JOIN chat_conversation p ON p.owner_uid = c.peer_uid AND p.peer_uid = c.owner_uid";
    private static final String CONVERSATION_SELECT = "SELECT " + CONVERSATION_COLUMNS + CONVERSATION_FROM;

    private static SendRow send(ResultSet rs) throws SQLException {
        return SendBatchStore.sendRow(rs, 1);
    }

    private static ChatMessage message(ResultSet rs) throws SQLException {
        boolean deleted = rs.getBoolean(12);
        boolean recalled = rs.getBoolean(13);
        boolean hidden = deleted || recalled; // the row stays for its seq; its content is nobody's to see any more
        long quote = rs.getLong(9);
        Long quoteMsgId = rs.wasNull() ? null : quote;
        return new ChatMessage(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5), rs.getString(6),
                rs.getString(7), hidden ? null : json(rs.getString(8)), hidden ? null : quoteMsgId, rs.getInt(10),
                rs.getObject(11, OffsetDateTime.class), deleted, recalled);
    }

    private static Conversation conversation(ResultSet rs) throws SQLException {
        long lastMsg = rs.getLong(4);
        Long lastMsgId = rs.wasNull() ? null : lastMsg;
        long lastSender = rs.getLong(5);
        Long lastSenderUid = rs.wasNull() ? null : lastSender;
        return new Conversation(rs.getLong(1), rs.getLong(2), rs.getLong(3), lastMsgId, lastSenderUid, rs.getString(6),
                rs.getInt(7), rs.getLong(8), rs.getLong(9), rs.getLong(10), rs.getLong(11), rs.getLong(12),
                rs.getObject(13, OffsetDateTime.class));
    }

    private static JsonObject json(String text) {
        try (var reader = Jsonp.PROVIDER.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    private <T> List<T> query(String sql, Jdbc.Row<T> row, Object... params) {
        return Jdbc.query(dataSource, e -> new StatementFailed("chat", e), sql, row, params);
    }

    private int update(String sql, Object... params) {
        return Jdbc.update(dataSource, e -> new StatementFailed("chat", e), sql, params);
    }
}
