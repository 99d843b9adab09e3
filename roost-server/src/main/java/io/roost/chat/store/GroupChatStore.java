package io.roost.chat.store;

import io.roost.platform.metrics.StoreTimed;
import io.roost.chat.SyncVersions;
import io.roost.chat.group.GroupMemberState;
import io.roost.chat.group.GroupMessage;
import io.roost.platform.json.Jsonp;
import io.roost.platform.store.Jdbc;
import io.roost.platform.store.StatementFailed;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Group chat by read diffusion: the group's head row and sequence ({@code group_chat}), one row per
 * message ({@code group_message}), each member's own state ({@code group_chat_member}), idempotent
 * sendIds ({@code group_chat_send}) and which nodes hold members' devices ({@code group_chat_node}).
 * Lock order of every writer: {@code grp} (group changes only) → {@code group_chat} rows (group id
 * order) → {@code group_chat_send} keys → {@code group_chat_member} rows; message rows are new rows.
 */
@StoreTimed
@Stateless
@TransactionAttribute(TransactionAttributeType.SUPPORTS)
public class GroupChatStore {

    /** A group's head: its last message and seq, the last @all, the member epoch, its sync version. */
    public record Head(long groupId, long lastSeq, Long lastMsgId, Long lastSenderUid, String lastPreview, long mentionAllSeq,
                       long memberEpoch, long syncVersion, OffsetDateTime updatedAt) {
    }

    /** A sendId's key: per sender and device. */
    public record SendKey(long sender, String deviceKey, String sendId) {
    }

    /** A stored sendId's answer. */
    public record SendRow(long groupId, long msgId, long seq, byte[] bodyHash, OffsetDateTime createdAt) {
    }

    /** A sendId to claim with the message it names. */
    public record Claim(SendKey key, long groupId, long msgId, long seq, byte[] hash) {
    }

    /** A group's head moving by a batch: {@code added} messages, the newest named; the last @all; member epoch + {@code epochAdded}. */
    public record Advance(long groupId, int added, long lastMsgId, long lastSenderUid, String preview, long mentionAllSeq,
                          int epochAdded, int versionRank) {
    }

    /** One message row to insert. */
    public record MessageRow(long groupId, long seq, long msgId, long senderUid, String sendId, String type, String bodyJson,
                             Long quoteMsgId, int priority, List<Long> mentions, boolean mentionAll) {
    }

    /** A group entry of a member's conversation list. */
    public record Entry(Head head, GroupMemberState member, long syncVersion, OffsetDateTime updatedAt) {
    }

    /** Entries changed after a version, and the sync horizon read in the same statement. */
    public record Entries(List<Entry> rows, long horizon) {
    }

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    private static final String HEAD_COLUMNS = "g.group_id, g.last_seq, g.last_msg_id, g.last_sender_uid, g.last_preview, "
            + "g.mention_all_seq, g.member_epoch, g.sync_version, g.updated_at";
    private static final String MEMBER_COLUMNS = "m.group_id, m.uid, m.joined_seq, m.left_seq, m.read_seq, m.mention_seq, m.muted";
    private static final String MESSAGE_COLUMNS = "group_id, seq, msg_id, sender_uid, send_id, msg_type, body::text, quote_msg_id, "
            + "priority, mentions, mention_all, created_at, recalled, deleted";

    // ---- heads ----

    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void insertGroup(long groupId) {
        update("INSERT INTO group_chat (group_id) VALUES (?) ON CONFLICT DO NOTHING", groupId);
    }

    /** Locks the groups' head rows in group id order; the heads of those there are. */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public Map<Long, Head> lock(Collection<Long> groupIds) {
        Map<Long, Head> heads = new HashMap<>();
        for (Head h : query("SELECT " + HEAD_COLUMNS + " FROM group_chat g WHERE g.group_id = ANY(?) ORDER BY g.group_id FOR UPDATE",
                GroupChatStore::head, (Object) groupIds.toArray(Long[]::new))) {
            heads.put(h.groupId(), h);
        }
        return heads;
    }

    public Optional<Head> head(long groupId) {
        return Jdbc.first(query("SELECT " + HEAD_COLUMNS + " FROM group_chat g WHERE g.group_id = ?", GroupChatStore::head, groupId));
    }

    /** Moves each head by its batch (its rows locked already); the new last seq and member epoch by group. */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public Map<Long, long[]> advance(List<Advance> advances) {
        int n = advances.size();
        Long[] groups = new Long[n];
        Integer[] added = new Integer[n];
        Long[] msgIds = new Long[n];
        Long[] senders = new Long[n];
        String[] previews = new String[n];
        Long[] mentionAll = new Long[n];
        Integer[] epochs = new Integer[n];
        Integer[] ranks = new Integer[n];
        for (int i = 0; i < n; i++) {
            Advance a = advances.get(i);
            groups[i] = a.groupId();
            added[i] = a.added();
            msgIds[i] = a.lastMsgId();
            senders[i] = a.lastSenderUid();
            previews[i] = a.preview();
            mentionAll[i] = a.mentionAllSeq();
            epochs[i] = a.epochAdded();
            ranks[i] = a.versionRank();
        }
        Map<Long, long[]> after = new HashMap<>();
        query("""
                UPDATE group_chat g SET last_seq = g.last_seq + a.added, last_msg_id = a.msg_id, last_sender_uid = a.sender,
                    last_preview = a.preview, mention_all_seq = greatest(g.mention_all_seq, a.mention_all),
                    member_epoch = g.member_epoch + a.epochs, sync_version = %s, updated_at = now()
                FROM unnest(?::int8[], ?::int4[], ?::int8[], ?::int8[], ?::varchar[], ?::int8[], ?::int4[], ?::int4[])
                    AS a(group_id, added, msg_id, sender, preview, mention_all, epochs, rank)
                WHERE g.group_id = a.group_id
                RETURNING g.group_id, g.last_seq, g.member_epoch""".formatted(SyncVersionSql.of("a.rank")),
                rs -> after.put(rs.getLong(1), new long[] {rs.getLong(2), rs.getLong(3)}),
                groups, added, msgIds, senders, previews, mentionAll, epochs, ranks);
        return after;
    }

    /** A new sync version and preview for a head whose last message changed (recalled, deleted). */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void touch(long groupId, String lastPreviewIfSeq, long seq, int versionRank) {
        update("""
                UPDATE group_chat SET last_preview = CASE WHEN last_seq = ? THEN ? ELSE last_preview END, sync_version = %s,
                    updated_at = now() WHERE group_id = ?""".formatted(SyncVersionSql.of("?")), seq, lastPreviewIfSeq, versionRank, groupId);
    }

    // ---- sends ----

    /** Claims the sendIds (a key taken already is skipped); each claimed key's time. */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public Map<SendKey, OffsetDateTime> claim(List<Claim> claims) {
        int n = claims.size();
        Long[] senders = new Long[n];
        String[] devices = new String[n];
        String[] sendIds = new String[n];
        Long[] groups = new Long[n];
        Long[] msgIds = new Long[n];
        Long[] seqs = new Long[n];
        byte[][] hashes = new byte[n][];
        for (int i = 0; i < n; i++) {
            Claim c = claims.get(i);
            senders[i] = c.key().sender();
            devices[i] = c.key().deviceKey();
            sendIds[i] = c.key().sendId();
            groups[i] = c.groupId();
            msgIds[i] = c.msgId();
            seqs[i] = c.seq();
            hashes[i] = c.hash();
        }
        Map<SendKey, OffsetDateTime> claimed = new HashMap<>();
        query("""
                INSERT INTO group_chat_send (sender_uid, device_key, send_id, group_id, msg_id, seq, body_hash)
                SELECT * FROM unnest(?::int8[], ?::varchar[], ?::varchar[], ?::int8[], ?::int8[], ?::int8[], ?::bytea[])
                ON CONFLICT DO NOTHING
                RETURNING sender_uid, device_key, send_id, created_at""",
                rs -> claimed.put(new SendKey(rs.getLong(1), rs.getString(2), rs.getString(3)), rs.getObject(4, OffsetDateTime.class)),
                senders, devices, sendIds, groups, msgIds, seqs, hashes);
        return claimed;
    }

    /** The stored answers of these sendIds, one query for all of them. */
    public Map<SendKey, SendRow> findSends(Collection<SendKey> keys) {
        Long[] senders = keys.stream().map(SendKey::sender).toArray(Long[]::new);
        String[] devices = keys.stream().map(SendKey::deviceKey).toArray(String[]::new);
        String[] sendIds = keys.stream().map(SendKey::sendId).toArray(String[]::new);
        Map<SendKey, SendRow> found = new HashMap<>();
        query("""
                SELECT s.sender_uid, s.device_key, s.send_id, s.group_id, s.msg_id, s.seq, s.body_hash, s.created_at
                FROM unnest(?::int8[], ?::varchar[], ?::varchar[]) AS k(u, d, i)
                JOIN group_chat_send s ON s.sender_uid = k.u AND s.device_key = k.d AND s.send_id = k.i""",
                rs -> found.put(new SendKey(rs.getLong(1), rs.getString(2), rs.getString(3)), new SendRow(rs.getLong(4), rs.getLong(5),
                        rs.getLong(6), rs.getBytes(7), rs.getObject(8, OffsetDateTime.class))), senders, devices, sendIds);
        return found;
    }

    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void insertMessages(List<MessageRow> rows) {
        int n = rows.size();
        Long[] groups = new Long[n];
        Long[] seqs = new Long[n];
        Long[] msgIds = new Long[n];
        Long[] senders = new Long[n];
        String[] sendIds = new String[n];
        String[] types = new String[n];
        String[] bodies = new String[n];
        Long[] quotes = new Long[n];
        Short[] priorities = new Short[n];
        String[] mentions = new String[n];
        Boolean[] all = new Boolean[n];
        for (int i = 0; i < n; i++) {
            MessageRow r = rows.get(i);
            groups[i] = r.groupId();
            seqs[i] = r.seq();
            msgIds[i] = r.msgId();
            senders[i] = r.senderUid();
            sendIds[i] = r.sendId();
            types[i] = r.type();
            bodies[i] = r.bodyJson();
            quotes[i] = r.quoteMsgId();
            priorities[i] = (short) r.priority();
            mentions[i] = r.mentions().isEmpty() ? null : r.mentions().stream().map(String::valueOf).reduce((a, b) -> a + "," + b)
                    .map(s -> "{" + s + "}").orElseThrow();
            all[i] = r.mentionAll();
        }
        update("""
                INSERT INTO group_message (group_id, seq, msg_id, sender_uid, send_id, msg_type, body, quote_msg_id, priority, mentions, mention_all)
                SELECT g, s, m, u, i, t, b::jsonb, q, p, x::int8[], a
                FROM unnest(?::int8[], ?::int8[], ?::int8[], ?::int8[], ?::varchar[], ?::varchar[], ?::varchar[], ?::int8[], ?::int2[],
                            ?::varchar[], ?::bool[]) AS r(g, s, m, u, i, t, b, q, p, x, a)""",
                groups, seqs, msgIds, senders, sendIds, types, bodies, quotes, priorities, mentions, all);
    }

    // ---- members ----

    /** The state of those of {@code uids} who have one in the group (current or past members). */
    public Map<Long, GroupMemberState> members(long groupId, Collection<Long> uids) {
        Map<Long, GroupMemberState> states = new HashMap<>();
        for (GroupMemberState m : query("SELECT " + MEMBER_COLUMNS + " FROM group_chat_member m WHERE m.group_id = ? AND m.uid = ANY(?)",
                GroupChatStore::member, groupId, uids.toArray(Long[]::new))) {
            states.put(m.uid(), m);
        }
        return states;
    }

    public Optional<GroupMemberState> member(long groupId, long uid) {
        return Optional.ofNullable(members(groupId, List.of(uid)).get(uid));
    }

    /** The groups the user is a member of now, with its state in each and each group's last seq (one index range). */
    public List<io.roost.chat.group.OnlineGroup> currentGroupsOf(long uid) {
        return query("SELECT " + MEMBER_COLUMNS + ", g.last_seq FROM group_chat_member m JOIN group_chat g ON g.group_id = m.group_id"
                + " WHERE m.uid = ? AND m.left_seq IS NULL ORDER BY m.group_id",
                rs -> new io.roost.chat.group.OnlineGroup(member(rs), rs.getLong(8)), uid);
    }

    /** A member joined at {@code joinedSeq} (sees what comes after): a new stint, whatever it had before. */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void joined(long groupId, long uid, long joinedSeq, int versionRank) {
        update("""
                INSERT INTO group_chat_member (group_id, uid, joined_seq, read_seq, sync_version) VALUES (?, ?, ?, ?, %s)
                ON CONFLICT (group_id, uid) DO UPDATE SET joined_seq = excluded.joined_seq, left_seq = NULL,
                    read_seq = excluded.read_seq, mention_seq = 0, muted = false, sync_version = excluded.sync_version, updated_at = now()"""
                .formatted(SyncVersionSql.of("?")), groupId, uid, joinedSeq, joinedSeq, versionRank);
    }

    /** A member left (quit or kicked) at {@code leftSeq}: it keeps seeing what came up to it. */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void left(long groupId, long uid, long leftSeq, int versionRank) {
        update("UPDATE group_chat_member SET left_seq = ?, sync_version = %s, updated_at = now() WHERE group_id = ? AND uid = ? AND left_seq IS NULL"
                .formatted(SyncVersionSql.of("?")), leftSeq, versionRank, groupId, uid);
    }

    /** The member muted or unmuted the group; false if it is not a member. */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public boolean setMuted(long groupId, long uid, boolean muted, int versionRank) {
        return update("UPDATE group_chat_member SET muted = ?, sync_version = %s, updated_at = now() WHERE group_id = ? AND uid = ? AND left_seq IS NULL"
                .formatted(SyncVersionSql.of("?")), muted, versionRank, groupId, uid) == 1;
    }

    /**
     * Moves read cursors forward (never back, never past what the member may see): (group, uid, seq,
     * rank) each; the states after, of the rows that moved.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public List<GroupMemberState> moveReadCursors(List<long[]> groupUidSeqRank) {
        int n = groupUidSeqRank.size();
        Long[] groups = new Long[n];
        Long[] uids = new Long[n];
        Long[] seqs = new Long[n];
        Integer[] ranks = new Integer[n];
        for (int i = 0; i < n; i++) {
            long[] r = groupUidSeqRank.get(i);
            groups[i] = r[0];
            uids[i] = r[1];
            seqs[i] = r[2];
            ranks[i] = (int) r[3];
        }
        return query("""
                UPDATE group_chat_member m SET read_seq = least(c.seq, coalesce(m.left_seq, c.seq)), sync_version = %s, updated_at = now()
                FROM unnest(?::int8[], ?::int8[], ?::int8[], ?::int4[]) AS c(group_id, uid, seq, rank)
                WHERE m.group_id = c.group_id AND m.uid = c.uid AND m.read_seq < least(c.seq, coalesce(m.left_seq, c.seq))
                RETURNING %s""".formatted(SyncVersionSql.of("c.rank"), MEMBER_COLUMNS), GroupChatStore::member, groups, uids, seqs, ranks);
    }

    /** The members mentioned by name in message {@code seq}: their entries show it until they read past it. */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void mentioned(long groupId, List<Long> uids, long seq, int firstRank) {
        Integer[] ranks = new Integer[uids.size()];
        for (int i = 0; i < ranks.length; i++) {
            ranks[i] = firstRank + i;
        }
        update("""
                UPDATE group_chat_member m SET mention_seq = greatest(m.mention_seq, ?), sync_version = %s, updated_at = now()
                FROM unnest(?::int8[], ?::int4[]) AS c(uid, rank)
                WHERE m.group_id = ? AND m.uid = c.uid AND m.left_seq IS NULL""".formatted(SyncVersionSql.of("c.rank")),
                seq, uids.toArray(Long[]::new), ranks, groupId);
    }

    /** Which of {@code uids} read up to {@code seq} at least (and may see it), at most {@code limit}, by uid after {@code after}. */
    public List<Long> readers(long groupId, long seq, long after, int limit) {
        return query("""
                SELECT uid FROM group_chat_member WHERE group_id = ? AND read_seq >= ? AND joined_seq < ? AND uid > ?
                ORDER BY uid LIMIT ?""", rs -> rs.getLong(1), groupId, seq, seq, after, limit);
    }

    /** How many members read up to {@code seq} (and may see it). */
    public long readerCount(long groupId, long seq) {
        return query("SELECT count(*) FROM group_chat_member WHERE group_id = ? AND read_seq >= ? AND joined_seq < ?",
                rs -> rs.getLong(1), groupId, seq, seq).get(0);
    }

    /**
     * The member's group entries changed after version {@code since}, in version order: a current
     * member's entry changes with every message of the group; a past member's only with its own
     * row (what came after its leave is not its business).
     */
    public Entries entriesSince(long uid, long since, int limit) {
        long[] horizon = {Long.MAX_VALUE};
        String version = "CASE WHEN m.left_seq IS NULL THEN greatest(g.sync_version, m.sync_version) ELSE m.sync_version END";
        List<Entry> rows = query("""
                SELECT %s, %s, %s AS v, greatest(g.updated_at, m.updated_at), pg_snapshot_xmin(pg_current_snapshot())::text::int8 * %d
                FROM group_chat_member m JOIN group_chat g ON g.group_id = m.group_id
                WHERE m.uid = ? AND %s > ? ORDER BY v LIMIT ?""".formatted(HEAD_COLUMNS, MEMBER_COLUMNS, version, SyncVersions.RANKS, version),
                rs -> {
                    horizon[0] = rs.getLong(19);
                    return new Entry(head(rs), member(rs, 9), rs.getLong(17), rs.getObject(18, OffsetDateTime.class));
                }, uid, since, limit);
        return new Entries(rows, horizon[0]);
    }

    // ---- messages ----

    public Optional<GroupMessage> message(long groupId, long seq) {
        return Jdbc.first(query("SELECT " + MESSAGE_COLUMNS + " FROM group_message WHERE group_id = ? AND seq = ?",
                GroupChatStore::message, groupId, seq));
    }

    public Optional<GroupMessage> messageById(long groupId, long msgId) {
        return Jdbc.first(query("SELECT " + MESSAGE_COLUMNS + " FROM group_message WHERE msg_id = ? AND group_id = ?",
                GroupChatStore::message, msgId, groupId));
    }

    /** Messages after {@code after} up to {@code upTo}, ascending, at most {@code limit}. */
    public List<GroupMessage> after(long groupId, long after, long upTo, int limit) {
        return query("SELECT " + MESSAGE_COLUMNS + " FROM group_message WHERE group_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?",
                GroupChatStore::message, groupId, after, upTo, limit);
    }

    /** Messages after {@code floor} and before {@code before}, newest first, at most {@code limit}. */
    public List<GroupMessage> newestBetween(long groupId, long floor, long before, int limit) {
        return query("SELECT " + MESSAGE_COLUMNS + " FROM group_message WHERE group_id = ? AND seq > ? AND seq < ? ORDER BY seq DESC LIMIT ?",
                GroupChatStore::message, groupId, floor, before, limit);
    }

    /** The message, its row locked (a recall or delete waits for another one's commit, then finds it done). */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public Optional<GroupMessage> lockMessage(long groupId, long seq) {
        return Jdbc.first(query("SELECT " + MESSAGE_COLUMNS + " FROM group_message WHERE group_id = ? AND seq = ? FOR UPDATE",
                GroupChatStore::message, groupId, seq));
    }

    /** Marks a message recalled or deleted for everyone: its content erased, its row kept for its seq. */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void erase(long groupId, long seq, boolean recall) {
        update("UPDATE group_message SET %s = true, body = '{}', quote_msg_id = NULL WHERE group_id = ? AND seq = ?"
                .formatted(recall ? "recalled" : "deleted"), groupId, seq);
        update("DELETE FROM group_media WHERE group_id = ? AND seq = ?", groupId, seq); // its files' downloads end with it
    }

    // ---- nodes with members online ----

    /** The nodes that hold a member device of each of these groups. */
    public Map<Long, List<Integer>> nodesOf(Collection<Long> groupIds) {
        Map<Long, List<Integer>> nodes = new LinkedHashMap<>();
        query("SELECT group_id, node_id FROM group_chat_node WHERE group_id = ANY(?) ORDER BY group_id, node_id",
                rs -> nodes.computeIfAbsent(rs.getLong(1), g -> new ArrayList<>()).add(rs.getInt(2)),
                (Object) groupIds.toArray(Long[]::new));
        return nodes;
    }

    public void publish(int nodeId, Collection<Long> groupIds) {
        update("INSERT INTO group_chat_node (group_id, node_id) SELECT g, ? FROM unnest(?::int8[]) AS g ON CONFLICT DO NOTHING",
                nodeId, groupIds.toArray(Long[]::new));
    }

    public void unpublish(int nodeId, Collection<Long> groupIds) {
        update("DELETE FROM group_chat_node WHERE node_id = ? AND group_id = ANY(?)", nodeId, groupIds.toArray(Long[]::new));
    }

    /** Forgets every row of the nodes not among {@code alive} (they died, or stopped); how many went. */
    public int forgetNodesExcept(Collection<Integer> alive) {
        return update("DELETE FROM group_chat_node WHERE NOT (node_id = ANY(?))", (Object) alive.toArray(Integer[]::new));
    }

    public int forgetNode(int nodeId) {
        return update("DELETE FROM group_chat_node WHERE node_id = ?", nodeId);
    }

    // ---- the coalesced offline push ----

    /** Messages of a group waiting for their offline push: from first_seq to last_seq, how many, whom they mention. */
    public record OfflineDue(long groupId, long firstSeq, long lastSeq, int pending, List<Long> mentioned, boolean mentionAll,
                             OffsetDateTime firstAt) {
    }

    /** A member who may need an offline push: whether it muted the group, and how far it read. */
    public record Candidate(long uid, boolean muted, long readSeq) {
    }

    /** Adds a batch's messages of a group to its offline-push row (due {@code delay} after its first message). */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void bufferOfflinePush(long groupId, long firstSeq, long lastSeq, int count, List<Long> mentioned, boolean mentionAll,
                                  java.time.Duration delay) {
        update("""
                INSERT INTO group_offline_push (group_id, first_seq, last_seq, pending, mentioned, mention_all, due_at)
                VALUES (?, ?, ?, ?, ?, ?, now() + make_interval(secs => ?))
                ON CONFLICT (group_id) DO UPDATE SET last_seq = greatest(group_offline_push.last_seq, EXCLUDED.last_seq),
                    first_seq = least(group_offline_push.first_seq, EXCLUDED.first_seq),
                    pending = group_offline_push.pending + EXCLUDED.pending,
                    mentioned = ARRAY(SELECT DISTINCT unnest(group_offline_push.mentioned || EXCLUDED.mentioned)),
                    mention_all = group_offline_push.mention_all OR EXCLUDED.mention_all""",
                groupId, firstSeq, lastSeq, count, mentioned.toArray(Long[]::new), mentionAll, delay.toMillis() / 1000.0);
    }

    /** Takes up to {@code limit} due rows (another node's are skipped), deleting them. */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public List<OfflineDue> takeDueOfflinePushes(int limit) {
        return query("""
                DELETE FROM group_offline_push WHERE group_id IN (
                    SELECT group_id FROM group_offline_push WHERE due_at <= now() ORDER BY due_at LIMIT ? FOR UPDATE SKIP LOCKED)
                RETURNING group_id, first_seq, last_seq, pending, mentioned, mention_all, first_at""", rs -> new OfflineDue(rs.getLong(1),
                rs.getLong(2), rs.getLong(3), rs.getInt(4), Arrays.asList((Long[]) rs.getArray(5).getArray()), rs.getBoolean(6),
                rs.getObject(7, OffsetDateTime.class)), limit);
    }

    /** Current members who may see {@code seq} and have not read it, by uid after {@code after}. */
    public List<Candidate> unreadBy(long groupId, long seq, long after, int limit) {
        return query("""
                SELECT uid, muted, read_seq FROM group_chat_member
                WHERE group_id = ? AND left_seq IS NULL AND joined_seq < ? AND read_seq < ? AND uid > ? ORDER BY uid LIMIT ?""",
                rs -> new Candidate(rs.getLong(1), rs.getBoolean(2), rs.getLong(3)), groupId, seq, seq, after, limit);
    }

    // ---- housekeeping ----

    /** The leaf partitions of {@code group_message}, by name. */
    public List<String> messagePartitions() {
        return query("SELECT relid::regclass::text FROM pg_partition_tree('group_message') WHERE isleaf ORDER BY 1", rs -> rs.getString(1));
    }

    /**
     * Deletes up to {@code batch} group messages older than {@code age} (by their msgId, a
     * snowflake) from one partition, in a transaction of its own; how many. The heads of their
     * groups are locked first, in group order, as every group writer locks them before a message
     * row; a head whose last message goes loses its preview of it.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int purgeMessages(String partition, java.time.Duration age, int batch) {
        if (!partition.matches("[A-Za-z0-9_.\"]+")) {
            throw new IllegalArgumentException("not a partition name: " + partition);
        }
        long firstKept = io.roost.platform.ids.Snowflake.firstIdAt(System.currentTimeMillis() - age.toMillis());
        query("""
                SELECT group_id FROM group_chat WHERE group_id IN (SELECT group_id FROM %s WHERE msg_id < ? LIMIT ?)
                ORDER BY group_id FOR UPDATE""".formatted(partition), rs -> null, firstKept, batch);
        return query("""
                WITH gone AS (
                    DELETE FROM %1$s WHERE ctid = ANY (ARRAY(SELECT ctid FROM %1$s WHERE msg_id < ? LIMIT ?))
                    RETURNING group_id, seq, msg_id),
                unnamed AS (
                    DELETE FROM group_media gm USING gone WHERE gm.group_id = gone.group_id AND gm.seq = gone.seq),
                cleared AS (
                    UPDATE group_chat g SET last_preview = NULL FROM gone
                    WHERE g.group_id = gone.group_id AND g.last_msg_id = gone.msg_id AND g.last_preview IS NOT NULL)
                SELECT count(*) FROM gone""".formatted(partition), rs -> rs.getInt(1), firstKept, batch).get(0);
    }

    /** Deletes up to {@code batch} sendIds older than {@code age}; how many. */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int purgeSends(java.time.Duration age, int batch) {
        return update("""
                DELETE FROM group_chat_send WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM group_chat_send WHERE created_at < now() - make_interval(secs => ?) ORDER BY created_at LIMIT ?))""",
                age.toMillis() / 1000.0, batch);
    }

    // ---- mapping ----

    private static Head head(ResultSet rs) throws SQLException {
        long lastMsg = rs.getLong(3);
        Long lastMsgId = rs.wasNull() ? null : lastMsg;
        long lastSender = rs.getLong(4);
        Long lastSenderUid = rs.wasNull() ? null : lastSender;
        return new Head(rs.getLong(1), rs.getLong(2), lastMsgId, lastSenderUid, rs.getString(5), rs.getLong(6), rs.getLong(7),
                rs.getLong(8), rs.getObject(9, OffsetDateTime.class));
    }

    private static GroupMemberState member(ResultSet rs) throws SQLException {
        return member(rs, 0);
    }

    private static GroupMemberState member(ResultSet rs, int from) throws SQLException {
        long left = rs.getLong(from + 4);
        Long leftSeq = rs.wasNull() ? null : left;
        return new GroupMemberState(rs.getLong(from + 1), rs.getLong(from + 2), rs.getLong(from + 3), leftSeq, rs.getLong(from + 5),
                rs.getLong(from + 6), rs.getBoolean(from + 7));
    }

    private static GroupMessage message(ResultSet rs) throws SQLException {
        boolean recalled = rs.getBoolean(13);
        boolean deleted = rs.getBoolean(14);
        boolean hidden = recalled || deleted;
        long quote = rs.getLong(8);
        Long quoteMsgId = rs.wasNull() ? null : quote;
        Array mentions = rs.getArray(10);
        List<Long> mentioned = mentions == null ? List.of() : Arrays.asList((Long[]) mentions.getArray());
        return new GroupMessage(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getString(5), rs.getString(6),
                hidden ? null : json(rs.getString(7)), hidden ? null : quoteMsgId, rs.getInt(9), mentioned, rs.getBoolean(11),
                rs.getObject(12, OffsetDateTime.class), recalled, deleted);
    }

    private static JsonObject json(String text) {
        return Jsonp.PROVIDER.createReader(new StringReader(text)).readObject();
    }

    private <T> List<T> query(String sql, Jdbc.Row<T> row, Object... params) {
        return Jdbc.query(dataSource, e -> new StatementFailed("group chat", e), sql, row, params);
    }

    private int update(String sql, Object... params) {
        return Jdbc.update(dataSource, e -> new StatementFailed("group chat", e), sql, params);
    }
}
