package io.roost.it.chat;

import static io.roost.it.Http.json;
import static io.roost.it.Http.okJson;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.Database;
import io.roost.it.DeployedRoost;
import io.roost.it.Http;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import io.roost.it.Wait;
import io.roost.it.WsDevice;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.sql.Connection;
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
 * group events as messages, recall, acknowledgement timeouts, and a login racing a send.
 */
class GroupChatIT extends DeployedRoost {

    private final Groups groups = new Groups();

    /** The group and chat calls these tests share. */
    final class Groups {

        User user() throws Exception {
            return TestUsers.registerWithoutPassword(baseUrl, "gc-", "pad", "p");
        }

        /** A public open group of {@code type} owned by {@code owner}, joined by {@code members}; its id. */
        String group(User owner, String type, User... members) {
            JsonObject g = okJson(http().post("api/v1/groups", owner.auth(), "{\"name\":\"gc " + Chats.sid() + "\",\"type\":\"" + type + "\"}"));
            String id = g.getString("id");
            for (User m : members) {
                HttpResponse<String> r = http().post("api/v1/groups/" + id + "/join", m.auth(), "{}");
                assertTrue(r.statusCode() / 100 == 2, r.body());
            }
            return id;
        }

        HttpResponse<String> send(User from, String group, String fields) {
            return http().post("api/v1/chat/groups/" + group + "/messages", from.auth(), "{\"sendId\":\"" + Chats.sid() + "\"," + fields + "}");
        }

        /** A text message over REST; its answer. */
        JsonObject text(User from, String group, String text) {
            HttpResponse<String> r = send(from, group, "\"type\":\"text\",\"text\":\"" + text + "\"");
            assertEquals(201, r.statusCode(), r.body());
            return json(r);
        }

        JsonObject sync(User reader, String group, long after, int limit) {
            return okJson(http().get("api/v1/chat/groups/" + group + "/sync?after=" + after + "&limit=" + limit, reader.auth()));
        }

        JsonObject messages(User reader, String group, String query) {
            return okJson(http().get("api/v1/chat/groups/" + group + "/messages" + query, reader.auth()));
        }

        /** The reader's group entry of its conversation list. */
        JsonObject entry(User reader, String group) {
            JsonObject page = okJson(http().get("api/v1/chat/users/me/conversations?limit=100", reader.auth()));
            return page.getJsonArray("items").getValuesAs(JsonObject.class).stream()
                    .filter(e -> "group".equals(e.getString("kind")) && group.equals(e.getString("group", null))).findFirst().orElse(null);
        }

        String code(HttpResponse<String> r) {
            return json(r).getString("type").replaceAll(".*:", "");
        }
    }

    /** The seqs of the chatMsg frames of {@code group} a device got so far, in arrival order. */
    static List<Long> pushedSeqs(WsDevice d, String group) {
        List<Long> seqs = new ArrayList<>();
        for (JsonObject f : d.frames) {
            if ("chatMsg".equals(f.getString("type")) && group.equals(f.getString("group", null))) {
                seqs.add(f.getJsonNumber("seq").longValue());
            }
        }
        return seqs;
    }

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
            JsonObject pushed = awaitGroupMsg(onPad, g, seq);
            assertEquals("hello all", pushed.getJsonObject("body").getString("text"));
            assertEquals(owner.id(), pushed.getString("senderUid"));

            JsonObject mention = ownerPad.op("chatOp", "\"op\":\"send\",\"group\":\"" + g + "\",\"sendId\":\"" + Chats.sid()
                    + "\",\"msgType\":\"text\",\"body\":{\"text\":\"you there?\"},\"mentions\":[\"" + muted.id() + "\"]");
            long mentionSeq = mention.getJsonNumber("msgSeq").longValue();
            awaitGroupMsg(mutedPad, g, mentionSeq);
            awaitGroupMsg(onPad, g, mentionSeq);
            assertFalse(pushedSeqs(mutedPad, g).contains(seq), "a member who muted the group gets no push but mentions");
            assertFalse(pushedSeqs(ownerPad, g).contains(seq), "the sending connection has its answer, not a push");
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

    static JsonObject awaitGroupMsg(WsDevice d, String group, long seq) throws Exception {
        while (true) {
            JsonObject f = d.await("chatMsg");
            if (group.equals(f.getString("group", null)) && f.getJsonNumber("seq").longValue() == seq) {
                return f;
            }
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
        WsDevice otherPad = WsDevice.login(baseUrl, other.token(), "pad", "p");
        try {
            long seq = groups.text(member, g, "oops").getJsonNumber("seq").longValue();
            awaitGroupMsg(otherPad, g, seq);
            assertEquals("not-sender", groups.code(http().post("api/v1/chat/groups/" + g + "/messages/" + seq + "/recall", other.auth(), "{}")));
            JsonObject recalled = okJson(http().post("api/v1/chat/groups/" + g + "/messages/" + seq + "/recall", member.auth(), "{}"));
            assertTrue(recalled.getBoolean("recalled"));
            JsonObject frame = otherPad.await("chatRecall");
            assertEquals(g, frame.getString("group"));
            assertEquals(seq, frame.getJsonNumber("seq").longValue());
            long second = groups.text(member, g, "by the owner").getJsonNumber("seq").longValue();
            assertTrue(okJson(http().post("api/v1/chat/groups/" + g + "/messages/" + second + "/recall", owner.auth(), "{}"))
                    .getBoolean("recalled"), "the owner recalls any member's message");
            JsonObject item = groups.messages(owner, g, "?after=" + (seq - 1) + "&limit=1").getJsonArray("items").getJsonObject(0);
            assertTrue(item.getBoolean("recalled"));
            assertFalse(item.containsKey("text"), "a recalled message has no content in history");
        } finally {
            otherPad.bye();
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
        assertFalse(awaitGroupMsg(pad, g, seq).getBoolean("again", false));
        assertTrue(awaitGroupMsg(pad, g, seq).getBoolean("again"), "pushed again after the acknowledgement timeout");
        assertEquals("ack_timeout", pad.await("kick").getString("reason"));
    }

    /**
     * The race read diffusion must survive: a member logs in (session, index, then catch-up) while a
     * message is sent (stored, nodes looked up, pushed). Whatever the interleaving, the message
     * reaches the device: pushed, or in the catch-up that follows its login.
     */
    @Test
    void aMemberLoggingInWhileAMessageIsSentGetsItPushedOrFetched() throws Exception {
        long seed = Long.getLong("roost.seed", System.nanoTime());
        System.out.println("GroupChatIT.aMemberLoggingIn seed=" + seed);
        Random random = new Random(seed);
        User owner = groups.user();
        User member = groups.user();
        String g = groups.group(owner, "chat", member);
        int rounds = Integer.getInteger("roost.group.race.rounds", 300);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int i = 0; i < rounds; i++) {
                int sendDelay = random.nextInt(30);
                int loginDelay = random.nextInt(30);
                CompletableFuture<JsonObject> sent = CompletableFuture.supplyAsync(() -> {
                    Wait.sleep(sendDelay);
                    return groups.text(owner, g, "race");
                }, pool);
                CompletableFuture<WsDevice> device = CompletableFuture.supplyAsync(() -> {
                    Wait.sleep(loginDelay);
                    try {
                        return WsDevice.login(baseUrl, member.token(), "pad", "p");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, pool);
                long seq = sent.get(30, TimeUnit.SECONDS).getJsonNumber("seq").longValue();
                WsDevice pad = device.get(30, TimeUnit.SECONDS);
                try {
                    JsonObject sync = pad.op("chatOp", "\"op\":\"sync\",\"group\":\"" + g + "\",\"after\":" + (seq - 1));
                    Set<Long> fetched = new HashSet<>();
                    sync.getJsonArray("items").getValuesAs(JsonObject.class).forEach(m -> fetched.add(m.getJsonNumber("seq").longValue()));
                    boolean pushed = pushedSeqs(pad, g).contains(seq);
                    assertTrue(pushed || fetched.contains(seq), "round " + i + " (seed " + seed + "): message " + seq
                            + " neither pushed nor fetched");
                } finally {
                    pad.bye();
                }
            }
        } finally {
            pool.shutdownNow();
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
                awaitGroupMsg(d, g, seq);
            }
            for (WsDevice d : devices) {
                assertFalse(pushedSeqs(d, g).contains(seq), "pushed once: no second copy behind the one awaited");
            }
            for (WsDevice d : leaving) {
                assertFalse(pushedSeqs(d, g).contains(seq), "a device that logged out gets nothing");
            }
        } finally {
            devices.forEach(WsDevice::bye);
            pool.shutdownNow();
        }
    }
}
