package io.roost.it.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.chat.ChatRetention;
import io.roost.chat.ChatService;
import io.roost.chat.ChatSync;
import io.roost.chat.Conversation;
import io.roost.chat.SendCommand;
import io.roost.chat.store.SyncVersionSql;
import io.roost.identity.AccountService;
import io.roost.it.InContainer;
import io.roost.it.InContainerUsers;
import io.roost.platform.json.Jsonp;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The retention purge against the real database: old timeline rows (inserted directly, 100 days
 * old, so the suite's own timer with its 365 d retention leaves them alone) go in batches, recent
 * ones stay, and a catch-up then tells the device the old ones are gone.
 */
@InContainer
class ChatRetentionInContainerIT {

    @Inject
    ChatRetention retention;

    @Inject
    ChatService chat;

    @Inject
    AccountService accounts;

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource db;

    long user() {
        return InContainerUsers.create(accounts, "cr-");
    }

    /**
     * {@code n} messages of a to b, seq 1..n, in both timelines, {@code age} old (msgIds 1..n: far below
     * any snowflake); both conversation rows' last seq at n.
     */
    void insertOld(long a, long b, int n, Duration age) throws Exception {
        try (Connection c = db.getConnection()) {
            for (long[] side : new long[][] {{a, b}, {b, a}}) {
                try (PreparedStatement ps = c.prepareStatement("""
                        INSERT INTO chat_timeline (owner_uid, peer_uid, seq, msg_id, sender_uid, send_id, msg_type, body, created_at)
                        SELECT ?, ?, g, g, ?, 'old-' || g, 'text', '{"text":"old"}', now() - make_interval(secs => ?)
                        FROM generate_series(1, ?) g""")) {
                    ps.setLong(1, side[0]);
                    ps.setLong(2, side[1]);
                    ps.setLong(3, a);
                    ps.setDouble(4, age.toSeconds());
                    ps.setInt(5, n);
                    ps.executeUpdate();
                }
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO chat_conversation (owner_uid, peer_uid, last_seq, sync_version)"
                    + " VALUES (?, ?, ?, " + SyncVersionSql.of("0") + "), (?, ?, ?, " + SyncVersionSql.of("0") + ")")) {
                for (int side = 0; side < 2; side++) {
                    ps.setLong(3 * side + 1, side == 0 ? a : b);
                    ps.setLong(3 * side + 2, side == 0 ? b : a);
                    ps.setLong(3 * side + 3, n);
                }
                ps.executeUpdate();
            }
        }
    }

    long rows(long owner, long peer) throws Exception {
        try (Connection c = db.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM chat_timeline WHERE owner_uid = ? AND peer_uid = ?")) {
            ps.setLong(1, owner);
            ps.setLong(2, peer);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    @Test
    void oldMessagesGoInBatchesAndACatchUpSaysTheyArePurged() throws Exception {
        long a = user();
        long b = user();
        insertOld(a, b, 6_000, Duration.ofDays(100));
        for (int i = 0; i < 3; i++) {
            chat.send(new SendCommand(a, b, "web:w", "new-" + i, "text", Jsonp.PROVIDER.createObjectBuilder().add("text", "new " + i).build(),
                    null, 0, false));
        }
        assertEquals(6_003, rows(a, b));

        ChatRetention.Purged purged = retention.purge(Duration.ofDays(30), 1_000);
        assertTrue(purged.rows() >= 12_000, "both timelines' old rows: " + purged);
        assertTrue(purged.batches() >= 12, "1,000 rows a transaction at most: " + purged);
        assertEquals(3, rows(a, b), "the recent ones stay");
        assertEquals(3, rows(b, a));
        assertEquals(new ChatRetention.Purged(0, 0), retention.purge(Duration.ofDays(30), 1_000), "nothing is left to purge");

        ChatSync sync = chat.sync(b, a, 0, 100);
        assertEquals(3, sync.items().size());
        assertEquals(6_001, sync.items().get(0).seq());
        assertEquals(new ChatSync.Gap(0, 6_001, ChatSync.PURGED), sync.gap());
        assertEquals(null, chat.sync(b, a, 6_000, 100).gap(), "a device that has them all lacks nothing");
    }

    /** A conversation whose last message is purged keeps no preview of it; one with newer messages keeps its own. */
    @Test
    void aPurgedLastMessageTakesItsPreviewAlong() throws Exception {
        long a = user();
        long b = user();
        long c = user();
        insertOld(a, b, 3, Duration.ofDays(100));
        try (Connection conn = db.getConnection(); PreparedStatement ps = conn.prepareStatement(
                "UPDATE chat_conversation SET last_msg_id = 3, last_preview = 'an old secret' WHERE owner_uid = ANY (?::int8[]) AND peer_uid = ANY (?::int8[])")) {
            ps.setArray(1, conn.createArrayOf("int8", new Long[] {a, b}));
            ps.setArray(2, conn.createArrayOf("int8", new Long[] {a, b}));
            assertEquals(2, ps.executeUpdate());
        }
        chat.send(new SendCommand(a, c, "web:w", "keep-" + UUID.randomUUID(), "text", Jsonp.PROVIDER.createObjectBuilder()
                .add("text", "still here").build(), null, 0, false));

        retention.purge(Duration.ofDays(30), 1_000);
        assertEquals(0, rows(a, b));
        for (long[] side : new long[][] {{a, b}, {b, a}}) {
            Conversation gone = chat.conversation(side[0], side[1]).orElseThrow();
            assertNull(gone.lastPreview(), "the purged message's text stays nowhere");
            assertEquals(3, gone.lastSeq(), "the row stays, with its last seq");
        }
        assertEquals("still here", chat.conversation(c, a).orElseThrow().lastPreview());
    }

    @Inject
    io.roost.group.GroupService groups;

    @Inject
    io.roost.chat.group.GroupChat groupChat;

    /** Old group messages go too, their text with the group's preview, and a catch-up says they are purged. */
    @Test
    void oldGroupMessagesGoWithTheirPreviewAndACatchUpSaysTheyArePurged() throws Exception {
        long owner = user();
        long groupId = groups.create(owner, "retention " + UUID.randomUUID(), "chat", null, null, null, null, java.util.List.of()).id();
        long created = groupChat.state(owner, groupId).lastSeq(); // the group's own "created" message: new, it stays
        int n = 2_500;
        try (Connection c = db.getConnection()) {
            try (PreparedStatement ps = c.prepareStatement("""
                    INSERT INTO group_message (group_id, seq, msg_id, sender_uid, send_id, msg_type, body, created_at)
                    SELECT ?, ? + g, g, ?, 'old-' || g, 'text', '{"text":"an old secret"}', now() - interval '100 days'
                    FROM generate_series(1, ?) g""")) {
                ps.setLong(1, groupId);
                ps.setLong(2, created);
                ps.setLong(3, owner);
                ps.setInt(4, n);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE group_chat SET last_seq = ?, last_msg_id = ?, last_preview = 'an old secret' WHERE group_id = ?")) {
                ps.setLong(1, created + n);
                ps.setLong(2, n);
                ps.setLong(3, groupId);
                assertEquals(1, ps.executeUpdate());
            }
        }
        ChatRetention.Purged purged = retention.purge(Duration.ofDays(30), 1_000);
        assertTrue(purged.rows() >= n && purged.batches() >= 3, "1,000 rows a transaction at most: " + purged);
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT count(*), (SELECT last_preview FROM group_chat WHERE group_id = ?) FROM group_message WHERE group_id = ?")) {
            ps.setLong(1, groupId);
            ps.setLong(2, groupId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertEquals(1, rs.getLong(1), "the recent message stays");
                assertNull(rs.getString(2), "the purged message's text stays nowhere");
            }
        }
        io.roost.chat.group.GroupSync sync = groupChat.sync(owner, groupId, created, 100);
        assertEquals(0, sync.items().size());
        assertEquals(new ChatSync.Gap(created, created + n + 1, ChatSync.PURGED), sync.gap());
    }
}
