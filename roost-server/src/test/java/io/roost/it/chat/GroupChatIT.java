package io.roost.it.chat;

import static io.roost.it.Http.json;
import static io.roost.it.Http.okJson;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.roost.client.device.Conversation;
import io.roost.client.device.RoostDevice;
import io.roost.it.Database;
import io.roost.it.DeployedRoost;
import io.roost.it.Devices;
import io.roost.it.Devices.Recorder;
import io.roost.it.Http;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import io.roost.it.Wait;
import io.roost.it.WsDevice;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Group chat by read diffusion with real WebSocket devices and REST: who may send, one stored row
 * per message, cursors and unread counts in the one conversation list, mentions through a mute,
 * live fan-out to online members only, catch-up with the gap marker, visibility by join and leave,
 * group events as messages, recall, acknowledgement timeouts, and a login racing a send. The recall
 * and offline-push tests' devices are the client library's; the others keep raw frames, as they
 * check which frames each connection was pushed (the library fetches what a gap misses and drops repeats).
 */
class GroupChatIT extends DeployedRoost {

    static final Duration WITHIN = Duration.ofSeconds(20);

    private GroupChats groups;

    @org.junit.jupiter.api.BeforeEach
    void calls() {
        groups = new GroupChats(baseUrl);
    }

    /** The roost-chat-events messages of groups, by group. */
    @org.junit.jupiter.api.extension.RegisterExtension
    static final io.roost.it.TopicEvents chatEvents = new io.roost.it.TopicEvents("roost-chat-events", "group");

    /** The roost-offline-push events of groups, by group. */
    @org.junit.jupiter.api.extension.RegisterExtension
    static final io.roost.it.TopicEvents offlinePushes = new io.roost.it.TopicEvents("roost-offline-push", "group");

    @Test
    void whoMaySendPerRoleAndGroupType() throws Exception {
        User owner = groups.user();
        User member = groups.user();
        User outsider = groups.user();
        String chat = groups.group(owner, "chat", member);
        assertEquals(201, groups.send(member, chat, "\"type\":\"text\",\"text\":\"hi\"").statusCode(), "a W member of a chat group sends");
        assertEquals("not-member", groups.code(groups.send(outsider, chat, "\"type\":\"text\",\"text\":\"hi\"")));

        String channel = groups.group(owner, "channel", member);
        assertEquals("role-cannot-send", groups.code(groups.send(member, channel, "\"type\":\"text\",\"text\":\"hi\"")),
                "members join a channel with R");
        assertEquals(201, groups.send(owner, channel, "\"type\":\"text\",\"text\":\"news\"").statusCode());

        Http.ok(http().put("api/v1/groups/" + chat + "/mutes/" + member.id(), owner.auth(), "{}"));
        assertEquals("muted", groups.code(groups.send(member, chat, "\"type\":\"text\",\"text\":\"hi\"")));
        Http.ok(http().delete("api/v1/groups/" + chat + "/mutes/" + member.id(), owner.auth()));
        assertEquals(201, groups.send(member, chat, "\"type\":\"text\",\"text\":\"back\"").statusCode());

        assertEquals("mention-all-forbidden", groups.code(groups.send(member, chat, "\"type\":\"text\",\"text\":\"all\",\"mentionAll\":true")));
        assertEquals("invalid-mention", groups.code(groups.send(member, chat,
                "\"type\":\"text\",\"text\":\"you\",\"mentions\":[\"" + outsider.id() + "\"]")));
        assertEquals(404, groups.send(member, "4242", "\"type\":\"text\",\"text\":\"hi\"").statusCode());

        Http.ok(http().delete("api/v1/groups/" + chat + "/members/" + member.id(), owner.auth()));
        assertEquals("not-member", groups.code(groups.send(member, chat, "\"type\":\"text\",\"text\":\"hi\"")), "kicked");
        Http.ok(http().delete("api/v1/groups/" + chat, owner.auth()));
        assertEquals("group-dissolved", groups.code(groups.send(owner, chat, "\"type\":\"text\",\"text\":\"hi\"")));
        assertTrue(groups.messages(member, chat, "?limit=100").getJsonArray("items").size() > 0,
                "a dissolved group's history stays readable to those who were members");
    }

    @Test
    void oneRowPerMessageAnIdempotentSendAndTheOneConversationList() throws Exception {
        User owner = groups.user();
        User a = groups.user();
        User b = groups.user();
        String g = groups.group(owner, "chat", a, b);
        long rowsBefore;
        try (Connection db = Database.connect()) {
            rowsBefore = Database.queryLong(db, "SELECT count(*) FROM group_message WHERE group_id = ?", Long.parseLong(g));
        }
        String sendId = Chats.sid();
        HttpResponse<String> first = http().post("api/v1/chat/groups/" + g + "/messages", a.auth(),
                "{\"sendId\":\"" + sendId + "\",\"type\":\"text\",\"text\":\"one\"}");
        HttpResponse<String> again = http().post("api/v1/chat/groups/" + g + "/messages", a.auth(),
                "{\"sendId\":\"" + sendId + "\",\"type\":\"text\",\"text\":\"one\"}");
        assertEquals(201, first.statusCode(), first.body());
        assertEquals(200, again.statusCode(), "a resend gets the stored answer");
        assertEquals(json(first).getString("msgId"), json(again).getString("msgId"));
        assertEquals("send-id-conflict", groups.code(http().post("api/v1/chat/groups/" + g + "/messages", a.auth(),
                "{\"sendId\":\"" + sendId + "\",\"type\":\"text\",\"text\":\"other\"}")));
        groups.text(b, g, "two");
        try (Connection db = Database.connect()) {
            assertEquals(rowsBefore + 2, Database.queryLong(db, "SELECT count(*) FROM group_message WHERE group_id = ?", Long.parseLong(g)),
                    "one row per message, whatever the group's size");
        }

        JsonObject ownerEntry = groups.entry(owner, g);
        assertNotNull(ownerEntry, "the group is in the owner's conversation list");
        long last = ownerEntry.getJsonNumber("lastSeq").longValue();
        assertEquals("two", ownerEntry.getString("lastPreview"));
        assertTrue(ownerEntry.getInt("unread") >= 2, ownerEntry.toString());
        JsonObject read = okJson(http().post("api/v1/chat/groups/" + g + "/members/me/read", owner.auth(), "{\"readSeq\":" + last + "}"));
        assertEquals(0, read.getInt("unread"));
        assertEquals(0, groups.entry(owner, g).getInt("unread"));
        assertEquals(last, groups.entry(b, g).getJsonNumber("readSeq").longValue(), "sending moves the sender's own cursor");
        assertEquals("cursor-past-end", groups.code(http().post("api/v1/chat/groups/" + g + "/members/me/read", owner.auth(),
                "{\"readSeq\":" + (last + 5) + "}")));

        // a one-to-one message and the group in the same list, ordered by version
        new Chats(baseUrl).sendText(a, owner, "direct");
        JsonObject list = okJson(http().get("api/v1/chat/users/me/conversations?limit=100", owner.auth()));
        Set<String> kinds = new HashSet<>();
        long previous = 0;
        for (JsonObject e : list.getJsonArray("items").getValuesAs(JsonObject.class)) {
            kinds.add(e.getString("kind"));
            assertTrue(e.getJsonNumber("syncVersion").longValue() > previous, "in version order");
            previous = e.getJsonNumber("syncVersion").longValue();
        }
        assertEquals(Set.of("user", "group"), kinds);
    }

    @Test
    void onlineMembersGetThePushMutedOnesOnlyMentionsAndAnOfflineOneCatchesUp() throws Exception {
        User owner = groups.user();
        User on = groups.user();
        User muted = groups.user();
        User away = groups.user();
        String g = groups.group(owner, "chat", on, muted, away);
        Http.ok(http().put("api/v1/chat/groups/" + g + "/members/" + muted.id() + "/mute", muted.auth(), "{\"muted\":true}"));
        WsDevice ownerPad = WsDevice.login(baseUrl, owner.token(), "pad", "p");
        WsDevice onPad = WsDevice.login(baseUrl, on.token(), "pad", "p");
        WsDevice mutedPad = WsDevice.login(baseUrl, muted.token(), "pad", "p");
        try {
            JsonObject ret = ownerPad.op("chatOp", "\"op\":\"send\",\"group\":\"" + g + "\",\"sendId\":\"" + Chats.sid()
                    + "\",\"msgType\":\"text\",\"body\":{\"text\":\"hello all\"}");
            assertEquals("ok", ret.getString("result"), ret.toString());
            long seq = ret.getJsonNumber("msgSeq").longValue();
            JsonObject pushed = GroupChats.awaitGroupMsg(onPad, g, seq);
            assertEquals("hello all", pushed.getJsonObject("body").getString("text"));
            assertEquals(owner.id(), pushed.getString("senderUid"));

            JsonObject mention = ownerPad.op("chatOp", "\"op\":\"send\",\"group\":\"" + g + "\",\"sendId\":\"" + Chats.sid()
                    + "\",\"msgType\":\"text\",\"body\":{\"text\":\"you there?\"},\"mentions\":[\"" + muted.id() + "\"]");
            long mentionSeq = mention.getJsonNumber("msgSeq").longValue();
            GroupChats.awaitGroupMsg(mutedPad, g, mentionSeq);
            GroupChats.awaitGroupMsg(onPad, g, mentionSeq);
            assertFalse(GroupChats.pushedSeqs(mutedPad, g).contains(seq), "a member who muted the group gets no push but mentions");
            assertFalse(GroupChats.pushedSeqs(ownerPad, g).contains(seq), "the sending connection has its answer, not a push");
            assertTrue(groups.entry(muted, g).getBoolean("mentioned"), "the mention shows in the muted member's entry");

            // the one who was away logs in and catches up: nothing lost
            WsDevice awayPad = WsDevice.login(baseUrl, away.token(), "pad", "p");
            try {
                JsonObject sync = awayPad.op("chatOp", "\"op\":\"sync\",\"group\":\"" + g + "\",\"after\":0");
                Set<Long> got = new TreeSet<>();
                sync.getJsonArray("items").getValuesAs(JsonObject.class).forEach(m -> got.add(m.getJsonNumber("seq").longValue()));
                assertTrue(got.containsAll(List.of(seq, mentionSeq)), sync.toString());
            } finally {
                awayPad.bye();
            }
        } finally {
            ownerPad.bye();
            onPad.bye();
            mutedPad.bye();
        }
    }

    /** A user in 2,000 groups pages through its one conversation list by version, each group once (the time per page is printed). */
    @Test
    void aUserInTwoThousandGroupsPagesItsConversationList() throws Exception {
        User user = groups.user();
        long base = 8_000_000_000_000_000_000L + (System.nanoTime() % 1_000_000_000L) * 1_000L;
        try (Connection db = Database.connect()) {
            // 2,000 groups the user is in, written as their rows are (a REST call per group would take the test minutes)
            Database.execute(db, """
                    WITH g AS (SELECT ?::bigint + i AS id, i FROM generate_series(1, 2000) i),
                    a AS (INSERT INTO grp (id, name, group_type, owner_id, member_count) SELECT id, 'bulk ' || i, 'chat', ?, 1 FROM g),
                    b AS (INSERT INTO group_member (group_id, uid, role) SELECT id, ?, 'O' FROM g),
                    c AS (INSERT INTO group_chat (group_id, last_seq, sync_version) SELECT id, 1, i FROM g)
                    INSERT INTO group_chat_member (group_id, uid, joined_seq, sync_version) SELECT id, ?, 0, i FROM g""",
                    base, Long.parseLong(user.id()), Long.parseLong(user.id()), Long.parseLong(user.id()));
        }
        Set<String> seen = new HashSet<>();
        String since = "0";
        long previous = 0;
        int pages = 0;
        long slowestMs = 0;
        while (since != null) {
            long t0 = System.nanoTime();
            JsonObject page = okJson(http().get("api/v1/chat/users/me/conversations?limit=100&since=" + since, user.auth()));
            slowestMs = Math.max(slowestMs, (System.nanoTime() - t0) / 1_000_000);
            for (JsonObject e : page.getJsonArray("items").getValuesAs(JsonObject.class)) {
                assertTrue(seen.add(e.getString("group")), "each group once: " + e);
                assertTrue(e.getJsonNumber("syncVersion").longValue() > previous, "in version order");
                previous = e.getJsonNumber("syncVersion").longValue();
            }
            since = page.get("next") instanceof jakarta.json.JsonString n ? n.getString() : null;
            pages++;
        }
        assertEquals(2000, seen.size());
        assertEquals(20, pages);
        System.out.println("conversation list of a user in 2,000 groups: 20 pages of 100, the slowest " + slowestMs + " ms");
    }

    @Test
    void quotesStayInTheirGroupAndTheContentFilterMasksGroupTextToo() throws Exception {
        User owner = groups.user();
        User member = groups.user();
        String g = groups.group(owner, "chat", member);
        String other = groups.group(owner, "chat");
        String quoted = groups.text(owner, g, "the original").getString("msgId");
        String elsewhere = groups.text(owner, other, "somewhere else").getString("msgId");
        HttpResponse<String> reply = groups.send(member, g, "\"type\":\"text\",\"text\":\"a reply\",\"quote\":\"" + quoted + "\"");
        assertEquals(201, reply.statusCode(), reply.body());
        assertEquals("invalid-quote", groups.code(groups.send(member, g,
                "\"type\":\"text\",\"text\":\"wrong\",\"quote\":\"" + elsewhere + "\"")), "a message of another group");
        long masked = groups.text(member, g, "a roostbadword here").getJsonNumber("seq").longValue();
        JsonObject stored = groups.messages(owner, g, "?after=" + (masked - 1) + "&limit=1").getJsonArray("items").getJsonObject(0);
        assertEquals("a ************ here", stored.getString("text"), "the suite's filter masks its words");
        JsonObject withQuote = groups.messages(owner, g, "?after=" + (masked - 2) + "&limit=1").getJsonArray("items").getJsonObject(0);
        assertEquals(quoted, withQuote.getString("quote"));
    }

    @Test
    void readReceiptsInASmallGroupAndNoneInALargerOne() throws Exception {
        User owner = groups.user();
        User a = groups.user();
        User b = groups.user();
        String small = groups.group(owner, "chat", a, b);
        long seq = groups.text(owner, small, "read me").getJsonNumber("seq").longValue();
        Http.ok(http().post("api/v1/chat/groups/" + small + "/members/me/read", a.auth(), "{\"readSeq\":" + seq + "}"));
        JsonObject readers = okJson(http().get("api/v1/chat/groups/" + small + "/messages/" + seq + "/readers", b.auth()));
        assertEquals(2, readers.getInt("count"), "the sender (its own cursor) and the one who read it: " + readers);
        assertEquals(Set.of(owner.id(), a.id()), new HashSet<>(readers.getJsonArray("uids").getValuesAs(jakarta.json.JsonString.class)
                .stream().map(jakarta.json.JsonString::getString).toList()));
        List<User> many = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            many.add(groups.user());
        }
        String large = groups.group(owner, "chat", many.toArray(User[]::new)); // 6 members, over the suite's limit of 5
        long big = groups.text(owner, large, "too many to track").getJsonNumber("seq").longValue();
        assertEquals("receipts-unavailable", groups.code(http().get("api/v1/chat/groups/" + large + "/messages/" + big + "/readers",
                owner.auth())));
    }

    @Test
    void everyStoredGroupMessageIsAnEventNamingItsGroup() throws Exception {
        User owner = groups.user();
        String g = groups.group(owner, "chat");
        String msgId = groups.text(owner, g, "for the indexers").getString("msgId");
        Wait.until("the message on roost-chat-events", Duration.ofSeconds(20),
                () -> chatEvents.events(g).stream().anyMatch(e -> msgId.equals(e.getString("msgId", null))));
        JsonObject event = chatEvents.events(g).stream().filter(e -> msgId.equals(e.getString("msgId", null))).findFirst().orElseThrow();
        assertEquals("for the indexers", event.getJsonObject("body").getString("text"));
        assertEquals(owner.id(), event.getString("senderUid"));
    }

    /**
     * Membership changes while devices are online: a member who joins gets the group's next
     * messages live, a kicked one gets nothing sent after the kick, and a member who mutes the
     * group on one device stops getting pushes on its other ones.
     */
    @Test
    void joinsKicksAndMutesWhileOnlineChangeWhatTheDevicesGet() throws Exception {
        User owner = groups.user();
        User joiner = groups.user();
        User kicked = groups.user();
        User muter = groups.user();
        String g = groups.group(owner, "chat", kicked, muter);
        WsDevice joinerPad = WsDevice.login(baseUrl, joiner.token(), "pad", "p");
        WsDevice kickedPad = WsDevice.login(baseUrl, kicked.token(), "pad", "p");
        WsDevice muterPad = WsDevice.login(baseUrl, muter.token(), "pad", "p");
        try {
            HttpResponse<String> joined = http().post("api/v1/groups/" + g + "/join", joiner.auth(), "{}");
            assertEquals(2, joined.statusCode() / 100, joined.body());
            Http.ok(http().delete("api/v1/groups/" + g + "/members/" + kicked.id(), owner.auth()));
            JsonObject muted = muterPad.op("chatOp", "\"op\":\"mute\",\"group\":\"" + g + "\",\"muted\":true");
            assertEquals("ok", muted.getString("result"), muted.toString());
            int unreadBefore = muterPad.op("chatOp", "\"op\":\"state\",\"group\":\"" + g + "\"").getJsonObject("state").getInt("unread");
            long seq = groups.text(owner, g, "after the changes").getJsonNumber("seq").longValue();
            long probe = groups.text(owner, g, "and one more").getJsonNumber("seq").longValue();
            GroupChats.awaitGroupMsg(joinerPad, g, seq);
            GroupChats.awaitGroupMsg(joinerPad, g, probe);
            // the joiner's device got both; whatever the kicked and the muted ones were to get has come by now
            kickedPad.op("chatOp", "\"op\":\"state\",\"group\":\"" + g + "\"");
            muterPad.op("chatOp", "\"op\":\"state\",\"group\":\"" + g + "\"");
            assertFalse(GroupChats.pushedSeqs(kickedPad, g).contains(seq), "nothing after the kick");
            assertFalse(GroupChats.pushedSeqs(muterPad, g).contains(seq), "no push to a member who muted the group");
            assertEquals(unreadBefore + 2, muterPad.op("chatOp", "\"op\":\"state\",\"group\":\"" + g + "\"").getJsonObject("state")
                    .getInt("unread"), "still unread");
        } finally {
            joinerPad.bye();
            kickedPad.bye();
            muterPad.bye();
        }
    }

    /**
     * Offline members get one coalesced event per group and burst (a count, never the text); one who
     * muted the group gets none but for a mention; one whose device is online gets none.
     */
    @Test
    void offlineMembersGetOneCoalescedPushPerGroupAndMentionsApart() throws Exception {
        User owner = groups.user();
        User away = groups.user();
        User mutedAway = groups.user();
        User online = groups.user();
        String g = groups.group(owner, "chat", away, mutedAway, online);
        Http.ok(http().put("api/v1/chat/groups/" + g + "/members/" + mutedAway.id() + "/mute", mutedAway.auth(), "{\"muted\":true}"));
        try (RoostDevice onlinePad = Devices.online(baseUrl, online, "pad", "p", new Recorder())) {
            offlinePushes.events(g).clear();
            groups.text(owner, g, "one");
            groups.text(owner, g, "two");
            HttpResponse<String> mention = groups.send(owner, g, "\"type\":\"text\",\"text\":\"three\",\"mentions\":[\"" + mutedAway.id() + "\"]");
            assertEquals(201, mention.statusCode(), mention.body());
            JsonObject count = null;
            JsonObject mentioned = null;
            while (count == null || mentioned == null) {
                JsonObject e = offlinePushes.events(g).poll(20, TimeUnit.SECONDS);
                assertNotNull(e, "an offline push within 20 s");
                if (e.getJsonArray("recipients").getValuesAs(jakarta.json.JsonString.class).stream().anyMatch(u -> u.getString().equals(mutedAway.id()))) {
                    mentioned = e;
                } else {
                    count = e;
                }
            }
            List<String> recipients = count.getJsonArray("recipients").getValuesAs(jakarta.json.JsonString.class).stream()
                    .map(jakarta.json.JsonString::getString).toList();
            assertTrue(recipients.contains(away.id()), count.toString());
            assertFalse(recipients.contains(online.id()), "a member with a live device gets no offline push");
            assertFalse(recipients.contains(owner.id()), "the sender read what it sent");
            assertEquals(3, count.getInt("count"), "the three messages in one event");
            assertFalse(count.toString().contains("one"), "no text in a group's offline push");
            assertEquals(List.of(mutedAway.id()), mentioned.getJsonArray("recipients").getValuesAs(jakarta.json.JsonString.class).stream()
                    .map(jakarta.json.JsonString::getString).toList(), "a muted member hears only of the mention");
        }
    }

    @Test
    void catchUpGivesTheNewest100AndAGapToPageBackInto() throws Exception {
        User owner = groups.user();
        User reader = groups.user();
        String g = groups.group(owner, "chat", reader);
        long start = groups.entry(reader, g).getJsonNumber("lastSeq").longValue();
        for (int i = 0; i < 120; i++) {
            groups.text(owner, g, "m" + i);
        }
        JsonObject sync = groups.sync(reader, g, start, 100);
        List<JsonObject> items = sync.getJsonArray("items").getValuesAs(JsonObject.class);
        assertEquals(100, items.size());
        long first = items.get(0).getJsonNumber("seq").longValue();
        assertEquals(start + 21, first, "the newest 100");
        JsonObject gap = sync.getJsonObject("gap");
        assertEquals("not-loaded", gap.getString("reason"));
        assertEquals(start, gap.getJsonNumber("afterSeq").longValue());
        assertEquals(first, gap.getJsonNumber("beforeSeq").longValue());
        JsonObject back = groups.messages(reader, g, "?before=" + first + "&limit=100");
        Set<Long> older = seqs(back);
        for (long seq = start + 1; seq < first; seq++) {
            assertTrue(older.contains(seq), "paging back fills the gap: " + seq + " missing from " + older);
        }
        assertEquals(first - 1, ((TreeSet<Long>) older).last(), "up to the first seq the catch-up gave");
        assertNull(groups.sync(reader, g, sync.getJsonNumber("lastSeq").longValue(), 100).get("gap"), "nothing missing after the last");
        assertEquals("cursor-past-end", groups.code(http().get("api/v1/chat/groups/" + g + "/sync?after=" + (start + 500), reader.auth())));
    }

    @Test
    void membersSeeFromTheirJoinAndNothingAfterTheirLeaveAndTheTimelineTellsTheStory() throws Exception {
        User owner = groups.user();
        User early = groups.user();
        User late = groups.user();
        String g = groups.group(owner, "chat", early);
        long before = groups.text(owner, g, "before the late one").getJsonNumber("seq").longValue();
        HttpResponse<String> joined = http().post("api/v1/groups/" + g + "/join", late.auth(), "{}");
        assertEquals(2, joined.statusCode() / 100, joined.body());
        long during = groups.text(owner, g, "with everyone").getJsonNumber("seq").longValue();
        Http.ok(http().delete("api/v1/groups/" + g + "/members/" + early.id(), owner.auth()));
        long after = groups.text(owner, g, "after the kick").getJsonNumber("seq").longValue();

        Set<Long> lateSees = seqs(groups.messages(late, g, "?limit=100"));
        assertFalse(lateSees.contains(before), "nothing from before the join");
        assertTrue(lateSees.containsAll(List.of(during, after)));
        Set<Long> earlySees = seqs(groups.messages(early, g, "?limit=100"));
        assertTrue(earlySees.containsAll(List.of(before, during)));
        assertFalse(earlySees.contains(after), "nothing after the kick");
        assertFalse(seqs(groups.sync(early, g, 0, 100)).contains(after), "in catch-up neither");

        List<String> story = new ArrayList<>();
        for (JsonObject m : groups.messages(owner, g, "?limit=100").getJsonArray("items").getValuesAs(JsonObject.class)) {
            if (m.containsKey("event")) {
                story.add(m.getJsonObject("event").getString("type"));
            }
        }
        assertEquals(List.of("created", "joined", "joined", "kicked"), story, "the group's changes, in its own sequence");
        assertEquals(404, http().get("api/v1/chat/groups/" + g + "/messages", groups.user().auth()).statusCode(),
                "a stranger reads nothing");
    }

    static Set<Long> seqs(JsonObject page) {
        Set<Long> seqs = new TreeSet<>();
        page.getJsonArray("items").getValuesAs(JsonObject.class).forEach(m -> seqs.add(m.getJsonNumber("seq").longValue()));
        return seqs;
    }

    @Test
    void recallByTheSenderAndByAnAdminReachesOnlineMembers() throws Exception {
        User owner = groups.user();
        User member = groups.user();
        User other = groups.user();
        String g = groups.group(owner, "chat", member, other);
        Recorder otherHeard = new Recorder();
        try (RoostDevice otherPad = Devices.online(baseUrl, other, "pad", "p", otherHeard)) {
            long seq = groups.text(member, g, "oops").getJsonNumber("seq").longValue();
            Wait.until("message " + seq + " on the other member's device", WITHIN,
                    () -> otherHeard.messages(Conversation.group(g)).stream().anyMatch(m -> m.seq() == seq));
            assertEquals("not-sender", groups.code(http().post("api/v1/chat/groups/" + g + "/messages/" + seq + "/recall", other.auth(), "{}")));
            JsonObject recalled = okJson(http().post("api/v1/chat/groups/" + g + "/messages/" + seq + "/recall", member.auth(), "{}"));
            assertTrue(recalled.getBoolean("recalled"));
            ObjectNode frame = otherHeard.awaitNotice("chatRecall", WITHIN).frame();
            assertEquals(g, frame.path("group").asText(), frame.toString());
            assertEquals(seq, frame.path("seq").asLong(), frame.toString());
            long second = groups.text(member, g, "by the owner").getJsonNumber("seq").longValue();
            assertTrue(okJson(http().post("api/v1/chat/groups/" + g + "/messages/" + second + "/recall", owner.auth(), "{}"))
                    .getBoolean("recalled"), "the owner recalls any member's message");
            JsonObject item = groups.messages(owner, g, "?after=" + (seq - 1) + "&limit=1").getJsonArray("items").getJsonObject(0);
            assertTrue(item.getBoolean("recalled"));
            assertFalse(item.containsKey("text"), "a recalled message has no content in history");
        }
    }

    @Test
    void aGroupMessageNotAcknowledgedIsPushedAgainThenTheDeviceCountsAsGone() throws Exception {
        User owner = groups.user();
        User silent = groups.user();
        String g = groups.group(owner, "chat", silent);
        WsDevice pad = WsDevice.login(baseUrl, silent.token(), "pad", "p");
        pad.autoAck = false;
        long seq = groups.text(owner, g, "ack me").getJsonNumber("seq").longValue();
        assertFalse(GroupChats.awaitGroupMsg(pad, g, seq).getBoolean("again", false));
        assertTrue(GroupChats.awaitGroupMsg(pad, g, seq).getBoolean("again"), "pushed again after the acknowledgement timeout");
        assertEquals("ack_timeout", pad.await("kick").getString("reason"));
    }

    /**
     * The race read diffusion must survive: a member logs in while a message is sent; whatever the
     * interleaving, the message reaches the device, pushed or in the catch-up after its login.
     */
    @Test
    void aMemberLoggingInWhileAMessageIsSentGetsItPushedOrFetched() throws Exception {
        User owner = groups.user();
        User member = groups.user();
        String g = groups.group(owner, "chat", member);
        groups.loginRacingSends(baseUrl, owner, member, g, Integer.getInteger("roost.group.race.rounds", 300));
    }

    /**
     * A reconnect storm during a group flood: members' devices drop and log in again over and over
     * while the owner sends; each one catches up after the highest seq it holds without a gap. In
     * the end every member holds every message, and no connection was pushed a message twice.
     */
    @Test
    void aReconnectStormDuringAGroupFloodLosesNothingAndPushesNothingTwice() throws Exception {
        long seed = Long.getLong("roost.seed", System.nanoTime());
        System.out.println("GroupChatIT reconnect storm seed=" + seed);
        User owner = groups.user();
        List<User> members = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            members.add(groups.user());
        }
        String g = groups.group(owner, "chat", members.toArray(User[]::new));
        long start = groups.entry(owner, g).getJsonNumber("lastSeq").longValue();
        int messages = 150;
        ExecutorService pool = Executors.newFixedThreadPool(members.size() + 1);
        try {
            java.util.concurrent.atomic.AtomicBoolean flooding = new java.util.concurrent.atomic.AtomicBoolean(true);
            CompletableFuture<Long> flood = CompletableFuture.supplyAsync(() -> {
                long last = 0;
                for (int i = 0; i < messages; i++) {
                    last = groups.text(owner, g, "flood " + i).getJsonNumber("seq").longValue();
                }
                flooding.set(false);
                return last;
            }, pool);
            List<CompletableFuture<TreeSet<Long>>> holders = new ArrayList<>();
            for (int k = 0; k < members.size(); k++) {
                User m = members.get(k);
                Random random = new Random(seed + k);
                holders.add(CompletableFuture.supplyAsync(() -> {
                    TreeSet<Long> held = new TreeSet<>();
                    try {
                        do {
                            WsDevice pad = WsDevice.login(baseUrl, m.token(), "pad", "p");
                            try {
                                catchUp(pad, g, contiguous(held, start), held);
                                Wait.sleep(20 + random.nextInt(200));
                                List<Long> pushed = new ArrayList<>();
                                for (JsonObject f : List.copyOf(pad.history)) {
                                    if ("chatMsg".equals(f.getString("type")) && g.equals(f.getString("group", null)) && !f.getBoolean("again", false)) {
                                        pushed.add(f.getJsonNumber("seq").longValue());
                                    }
                                }
                                assertEquals(new HashSet<>(pushed).size(), pushed.size(), "a connection was pushed a message twice: " + pushed);
                                held.addAll(pushed);
                            } finally {
                                pad.abort(); // a dropped connection, not a goodbye
                            }
                        } while (flooding.get());
                        WsDevice last = WsDevice.login(baseUrl, m.token(), "pad", "p");
                        try {
                            catchUp(last, g, contiguous(held, start), held);
                        } finally {
                            last.bye();
                        }
                        return held;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, pool));
            }
            long last = flood.get(120, TimeUnit.SECONDS);
            for (CompletableFuture<TreeSet<Long>> h : holders) {
                TreeSet<Long> held = h.get(120, TimeUnit.SECONDS);
                for (long seq = start + 1; seq <= last; seq++) {
                    assertTrue(held.contains(seq), "seed " + seed + ": message " + seq + " lost");
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** The highest seq held without a gap above {@code floor}. */
    static long contiguous(TreeSet<Long> held, long floor) {
        long seq = floor;
        while (held.contains(seq + 1)) {
            seq++;
        }
        return seq;
    }

    /** Pages through the group's messages after {@code after} (ascending) into {@code held}. */
    static void catchUp(WsDevice d, String g, long after, TreeSet<Long> held) throws InterruptedException {
        String next = Long.toString(after);
        while (next != null) {
            JsonObject page = d.op("chatOp", "\"op\":\"messages\",\"group\":\"" + g + "\",\"after\":" + next + ",\"limit\":100");
            assertEquals("ok", page.getString("result"), page.toString());
            page.getJsonArray("items").getValuesAs(JsonObject.class).forEach(m -> held.add(m.getJsonNumber("seq").longValue()));
            next = page.get("next") instanceof jakarta.json.JsonString s ? s.getString() : null;
        }
    }

    @Test
    void theOnlineIndexMatchesTheSessionsAfterRacingLoginsAndLogouts() throws Exception {
        User owner = groups.user();
        User member = TestUsers.create(baseUrl, "gc-"); // a token any device may log in with
        String g = groups.group(owner, "chat", member);
        List<WsDevice> devices = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<CompletableFuture<WsDevice>> logins = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                String id = "p" + i;
                logins.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return WsDevice.login(baseUrl, member.token(), "pad", id); // pad: many at once
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, pool));
            }
            for (CompletableFuture<WsDevice> l : logins) {
                devices.add(l.get(30, TimeUnit.SECONDS));
            }
            List<WsDevice> leaving = new ArrayList<>(devices.subList(0, 4));
            devices.removeAll(leaving);
            List<CompletableFuture<Void>> byes = leaving.stream().map(d -> CompletableFuture.runAsync(d::bye, pool)).toList();
            for (WsDevice d : leaving) {
                d.closed.get(10, TimeUnit.SECONDS);
            }
            byes.forEach(CompletableFuture::join);
            // every device still online gets the next message, and only once; those that left get nothing more
            long seq = groups.text(owner, g, "to who is left").getJsonNumber("seq").longValue();
            for (WsDevice d : devices) {
                GroupChats.awaitGroupMsg(d, g, seq);
            }
            for (WsDevice d : devices) {
                assertEquals(1, GroupChats.pushedSeqs(d, g).stream().filter(s -> s == seq).count(), "pushed once");
            }
            for (WsDevice d : leaving) {
                assertFalse(GroupChats.pushedSeqs(d, g).contains(seq), "a device that logged out gets nothing");
            }
            // the node's index holds exactly the sessions there are: the member's four devices and nothing of the four gone
            Wait.until("the member's four sessions left (their closes are served after the sockets closed)", Duration.ofSeconds(20),
                    () -> okJson(http().get("api/v1/presence/users/" + member.id(), Http.ADMIN)).getJsonArray("devices").size() == 4);
            Wait.until("the online index holding exactly the four sessions", Duration.ofSeconds(20),
                    () -> okJson(http().get("api/v1/gateway/groups/" + g, Http.ADMIN)).getInt("connections") == 4);
        } finally {
            devices.forEach(WsDevice::bye);
            pool.shutdownNow();
        }
    }
}
