package io.roost.it.chat;

import static io.roost.it.Http.ADMIN;
import static io.roost.it.Http.json;
import static io.roost.it.Http.okJson;
import static io.roost.it.Problems.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.roost.client.device.RoostDevice;
import io.roost.it.Database;
import io.roost.it.DeployedRoost;
import io.roost.it.Devices;
import io.roost.it.Devices.Recorder;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import io.roost.it.TopicEvents;
import io.roost.it.WsDevice;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One-to-one chat beyond the send: recall (the sender's, within ROOST_CHAT_RECALL_WINDOW — 5 s in
 * the suite's WildFly, pom.xml — and the operator's, audited), catch-up with a gap marker, the
 * conversation ops over a device's socket, and per-user chat settings. The recall tests' devices are
 * the client library's; the socket tests of catch-up and the conversation ops keep raw frames: they
 * check that the answer frames carry the REST API's views, and the refusal codes of malformed ops.
 */
class ChatExtrasIT extends DeployedRoost {

    static final Duration WITHIN = Duration.ofSeconds(20);

    /** The suite's ROOST_CHAT_RECALL_WINDOW. */
    static final int RECALL_WINDOW_SECONDS = 5;

    @RegisterExtension
    static final TopicEvents events = new TopicEvents("roost-chat-events", "msgId");

    Chats chats() {
        return new Chats(baseUrl);
    }

    static List<Integer> seqs(JsonArray items) {
        return items.stream().map(m -> m.asJsonObject().getInt("seq")).toList();
    }

    @Test
    void theSenderRecallsOverTheSocketAndBothSidesDevicesAreTold() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.user();
        chats.sendText(a, b, "first");
        JsonObject sent = chats.sendText(a, b, "oops, wrong chat");
        String msgId = sent.getString("msgId");
        long versionA = chats.existingConversation(a, b).getJsonNumber("syncVersion").longValue();
        long versionB = chats.existingConversation(b, a).getJsonNumber("syncVersion").longValue();
        assertEquals(2, chats.existingConversation(b, a).getInt("unread"));

        // the devices stay only as long as they are needed: the suite's heartbeat timeout is 8 s
        ObjectNode ret;
        Recorder aHeard = new Recorder();
        Recorder bHeard = new Recorder();
        try (RoostDevice aDevice = Devices.online(baseUrl, a, "web", "w", aHeard);
                RoostDevice bDevice = Devices.online(baseUrl, b, "web", "w", bHeard)) {
            // the sender's device gets the answer (the library matches it by the request's seq) and the notice, in either order
            ret = aDevice.request("chatOp", "recall", RoostDevice.fields().put("peer", b.id()).put("msgSeq", 2)).get(30, TimeUnit.SECONDS);
            assertEquals("ok", ret.path("result").asText(), ret.toString());
            assertTrue(ret.path("message").path("recalled").asBoolean(), ret.toString());
            assertFalse(ret.path("message").path("text").isTextual(), ret.toString());
            for (Recorder heard : List.of(aHeard, bHeard)) {
                ObjectNode notice = heard.awaitNotice("chatRecall", n -> msgId.equals(n.frame().path("msgId").asText()), WITHIN).frame();
                assertEquals(2, notice.path("seq").asInt(), notice.toString());
                assertEquals(a.id(), notice.path("from").asText());
                assertEquals(b.id(), notice.path("to").asText());
                assertEquals(a.id(), notice.path("by").asText());
            }
            assertEquals("not-found", Devices.outcome(aDevice.request("chatOp", "recall",
                    RoostDevice.fields().put("peer", b.id()).put("msgSeq", 99))).path("code").asText());
            assertEquals("invalid-cursor", Devices.outcome(aDevice.request("chatOp", "recall",
                    RoostDevice.fields().put("peer", b.id()))).path("code").asText());
        }

        for (User[] side : new User[][] {{a, b}, {b, a}}) {
            JsonObject m = chats.items(side[0], side[1]).getJsonObject(1);
            assertTrue(m.getBoolean("recalled"), m.toString());
            assertNull(m.getString("text", null), "no content is shown: " + m);
            assertEquals(msgId, m.getString("msgId"));
            assertEquals("[recalled]", chats.existingConversation(side[0], side[1]).getString("lastPreview"), "it was the last message");
        }
        assertTrue(chats.existingConversation(a, b).getJsonNumber("syncVersion").longValue() > versionA, "a's other devices see the change");
        assertTrue(chats.existingConversation(b, a).getJsonNumber("syncVersion").longValue() > versionB, "so do b's");
        assertEquals(1, chats.existingConversation(b, a).getInt("unread"), "a recalled message is no longer unread");
        assertFalse(chats.items(b, a).getJsonObject(0).getBoolean("recalled"), "only that message");

        // again: the same answer, nothing changes
        long after = chats.existingConversation(a, b).getJsonNumber("syncVersion").longValue();
        var again = chats.recall(a, a.auth(), b, 2);
        assertEquals(200, again.statusCode(), again.body());
        assertEquals(json(ret.get("message").toString()), json(again));
        assertEquals(after, chats.existingConversation(a, b).getJsonNumber("syncVersion").longValue());

        // a message that is not the last: the preview stays
        chats.sendText(b, a, "mine");
        chats.sendText(b, a, "later");
        assertEquals(200, chats.recall(b, b.auth(), a, 3).statusCode());
        assertEquals("later", chats.existingConversation(a, b).getString("lastPreview"));
        assertEquals(1, chats.existingConversation(a, b).getInt("unread"));

        // refusals: the peer's message, no such message, another user's timeline; a recalled message cannot be quoted
        assertProblem(chats.recall(a, a.auth(), b, 4), 403, "not-sender");
        assertProblem(chats.recall(a, a.auth(), b, 99), 404, "not-found");
        assertProblem(chats.recall(a, b.auth(), b, 1), 403, "forbidden");
        var quote = chats.send(b.auth(), "\"peer\":\"" + a.id() + "\",\"sendId\":\"" + Chats.sid()
                + "\",\"type\":\"text\",\"text\":\"re\",\"quote\":\"" + msgId + "\"");
        assertProblem(quote, 400, "invalid-quote");

        JsonObject recallEvent = recallEvent(msgId);
        assertEquals(a.id(), recallEvent.getString("by"));
        assertEquals(2, recallEvent.getInt("seq"));
    }

    /**
     * Moves message {@code seq} of the conversation back in time by {@code age}, in both timelines:
     * a recall measures its window from the {@code created_at} of the sender's copy (the message's
     * sentAt), so this is a message sent that long ago, without waiting the window out.
     */
    static void sentLongAgo(User sender, User peer, long seq, Duration age) throws Exception {
        try (Connection c = Database.connect()) {
            Long[] both = {Long.parseLong(sender.id()), Long.parseLong(peer.id())};
            assertEquals(2, Database.execute(c, """
                    UPDATE chat_timeline SET created_at = created_at - make_interval(secs => ?)
                    WHERE owner_uid = ANY (?) AND peer_uid = ANY (?) AND seq = ?""",
                    (double) age.toSeconds(), c.createArrayOf("int8", both), c.createArrayOf("int8", both), seq), "both copies");
        }
    }

    /** The roost-chat-events of a message: the message, then its recall, both keyed by msgId; the recall's. */
    static JsonObject recallEvent(String msgId) throws InterruptedException {
        for (int i = 0; i < 2; i++) {
            JsonObject e = events.events(msgId).poll(30, TimeUnit.SECONDS);
            assertNotNull(e, "no roost-chat-events message for " + msgId);
            if (e.containsKey("by")) {
                return e;
            }
        }
        throw new AssertionError("no recall event for " + msgId);
    }

    @Test
    void afterTheWindowOnlyAnOperatorRecallsAndIsAudited() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.user();
        JsonObject sent = chats.sendText(a, b, "too late to take back");
        sentLongAgo(a, b, 1, Duration.ofSeconds(RECALL_WINDOW_SECONDS + 1));
        assertProblem(chats.recall(a, a.auth(), b, 1), 409, "recall-window-passed");
        assertFalse(chats.items(b, a).getJsonObject(0).getBoolean("recalled"), "nothing changed");

        String body = "{\"owner\":\"" + b.id() + "\",\"peer\":\"" + a.id() + "\",\"seq\":1}";
        assertProblem(http().post("api/v1/admin/chat/messages/recall", b.auth(), body), 403, "forbidden");
        String admin = okJson(http().get("api/v1/accounts/me", ADMIN)).getString("id");
        Recorder bHeard = new Recorder();
        try (RoostDevice bDevice = Devices.online(baseUrl, b, "web", "w", bHeard)) {
            var r = http().post("api/v1/admin/chat/messages/recall", ADMIN, body);
            assertEquals(200, r.statusCode(), r.body());
            assertTrue(json(r).getBoolean("recalled"));
            assertEquals(sent.getString("msgId"), json(r).getString("msgId"));
            ObjectNode notice = bHeard.awaitNotice("chatRecall", WITHIN).frame();
            assertEquals(admin, notice.path("by").asText(), notice.toString());
            assertEquals(a.id(), notice.path("from").asText(), "the sender, whichever side the operator named");
        }
        assertTrue(chats.items(a, b).getJsonObject(0).getBoolean("recalled"));
        assertProblem(http().post("api/v1/admin/chat/messages/recall", ADMIN,
                "{\"owner\":\"" + b.id() + "\",\"peer\":\"" + a.id() + "\",\"seq\":7}"), 404, "not-found");

        JsonArray audit = json(http().get("api/v1/admin/audit?targetType=chat-message&targetId=" + b.id() + "/" + a.id() + "/1",
                ADMIN)).getJsonArray("items");
        assertEquals(1, audit.size(), audit.toString());
        assertEquals("recall-chat-message", audit.getJsonObject(0).getString("action"));
        assertEquals("ok", audit.getJsonObject(0).getString("outcome"));
        assertEquals(admin, audit.getJsonObject(0).getString("actorId"), "the operator who did it");
        var refused = json(http().get("api/v1/admin/audit?targetType=chat-message&targetId=" + b.id() + "/" + a.id() + "/7",
                ADMIN)).getJsonArray("items");
        assertEquals("refused", refused.getJsonObject(0).getString("outcome"), refused.toString());
    }

    @Test
    void aLongAwayDeviceGetsTheNewestHundredAGapMarkerAndPagesBack() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.user();
        for (int i = 1; i <= 150; i++) {
            chats.sendText(i % 2 == 0 ? a : b, i % 2 == 0 ? b : a, "m" + i);
        }
        var r = http().get("api/v1/chat/users/me/conversations/" + b.id() + "/sync?after=0&limit=100", a.auth());
        assertEquals(200, r.statusCode(), r.body());
        JsonObject sync = json(r);
        assertEquals(IntStream.rangeClosed(51, 150).boxed().toList(), seqs(sync.getJsonArray("items")));
        JsonObject gap = sync.getJsonObject("gap");
        assertEquals(0, gap.getInt("afterSeq"));
        assertEquals(51, gap.getInt("beforeSeq"));
        assertEquals("not-loaded", gap.getString("reason"));
        assertEquals(150, sync.getInt("lastSeq"));
        JsonObject older = json(http().get("api/v1/chat/users/me/conversations/" + b.id() + "/messages?before=51&limit=100", a.auth()));
        assertEquals(IntStream.rangeClosed(1, 50).boxed().toList(), seqs(older.getJsonArray("items")));
        assertTrue(older.isNull("next"));

        // a device that is only a little behind gets the rest and no gap
        JsonObject recent = json(http().get("api/v1/chat/users/" + a.id() + "/conversations/" + b.id() + "/sync?after=140", ADMIN));
        assertEquals(IntStream.rangeClosed(141, 150).boxed().toList(), seqs(recent.getJsonArray("items")));
        assertFalse(recent.containsKey("gap"), "no gap: " + recent);

        // the same over the socket
        WsDevice aDevice = WsDevice.login(baseUrl, a.token(), "web", "w");
        try {
            JsonObject ws = aDevice.op("chatOp", "\"op\":\"sync\",\"peer\":\"" + b.id() + "\",\"after\":0,\"limit\":100");
            assertEquals("ok", ws.getString("result"), ws.toString());
            assertEquals(sync.getJsonArray("items"), ws.getJsonArray("items"), "the REST API's views");
            assertEquals(gap, ws.getJsonObject("gap"));
            JsonObject page = aDevice.op("chatOp", "\"op\":\"messages\",\"peer\":\"" + b.id() + "\",\"before\":51,\"limit\":50");
            assertEquals(IntStream.rangeClosed(1, 50).boxed().toList(), seqs(page.getJsonArray("items")));
            assertTrue(page.isNull("next"));
            assertEquals("invalid-limit", aDevice.op("chatOp", "\"op\":\"sync\",\"peer\":\"" + b.id() + "\",\"limit\":101")
                    .getString("code"));
            assertEquals("invalid-cursor", aDevice.op("chatOp", "\"op\":\"sync\",\"peer\":\"" + b.id() + "\",\"after\":-1")
                    .getString("code"));
        } finally {
            aDevice.bye();
        }
        assertProblem(http().get("api/v1/chat/users/" + a.id() + "/conversations/" + b.id() + "/sync", chats.user().auth()), 403, "forbidden");
        assertProblem(http().get("api/v1/chat/users/me/conversations/" + b.id() + "/sync?limit=0", a.auth()), 400, "invalid-limit");
    }

    @Test
    void aDeviceListsReadsAndDeletesOverItsSocket() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.user();
        chats.sendText(a, b, "one");
        chats.sendText(b, a, "two");
        WsDevice aDevice = WsDevice.login(baseUrl, a.token(), "web", "w");
        try {
            JsonObject list = aDevice.op("chatOp", "\"op\":\"conversations\",\"since\":0");
            assertEquals("ok", list.getString("result"), list.toString());
            JsonObject mine = list.getJsonArray("items").getJsonObject(0);
            assertEquals(b.id(), mine.getString("peer"));
            assertEquals(chats.existingConversation(a, b), mine, "the REST API's view");
            long version = mine.getJsonNumber("syncVersion").longValue();
            assertEquals(0, aDevice.op("chatOp", "\"op\":\"conversations\",\"since\":\"" + version + "\"").getJsonArray("items").size());

            JsonObject page = aDevice.op("chatOp", "\"op\":\"messages\",\"peer\":\"" + b.id() + "\",\"after\":1");
            assertEquals("two", page.getJsonArray("items").getJsonObject(0).getString("text"), page.toString());

            JsonObject deleted = aDevice.op("chatOp", "\"op\":\"delete\",\"peer\":\"" + b.id() + "\",\"msgSeq\":1");
            assertEquals("ok", deleted.getString("result"), deleted.toString());
            assertTrue(chats.items(a, b).getJsonObject(0).getBoolean("deleted"));
            assertFalse(chats.items(b, a).getJsonObject(0).getBoolean("deleted"), "only for me");
            assertEquals("not-found", aDevice.op("chatOp", "\"op\":\"delete\",\"peer\":\"" + b.id() + "\",\"msgSeq\":9").getString("code"));
            assertEquals("invalid-id", aDevice.op("chatOp", "\"op\":\"messages\",\"peer\":\"x\"").getString("code"));
            assertEquals("one-cursor", aDevice.op("chatOp", "\"op\":\"messages\",\"peer\":\"" + b.id() + "\",\"after\":1,\"before\":2")
                    .getString("code"));
            assertTrue(aDevice.op("chatOp", "\"op\":\"conversations\",\"since\":\"" + version + "\"").getJsonArray("items").size() == 1,
                    "the delete moved the conversation to a new version");
        } finally {
            aDevice.bye();
        }
    }

    @Test
    void aServiceAccountSendsForAUserOrAsTheSystemAndReadsAndRecallsForThem() throws Exception {
        Chats chats = chats();
        User shop = TestUsers.service(baseUrl, "cx-svc-");
        User a = chats.user();
        User b = chats.user();
        String to = "\"peer\":\"" + b.id() + "\",\"sendId\":\"" + Chats.sid() + "\",";
        assertProblem(chats.send(shop.auth(), to + "\"type\":\"text\",\"text\":\"x\""), 400, "from-required");
        var onBehalf = chats.send(shop.auth(), to + "\"from\":\"" + a.id() + "\",\"type\":\"text\",\"text\":\"your order shipped\"");
        assertEquals(201, onBehalf.statusCode(), onBehalf.body());
        var system = chats.send(shop.auth(), "\"peer\":\"" + b.id() + "\",\"sendId\":\"" + Chats.sid()
                + "\",\"from\":\"" + a.id() + "\",\"type\":\"system\",\"text\":\"Order 42 closed\"");
        assertEquals(201, system.statusCode(), system.body());

        JsonArray ofB = chats.messages(b, shop.auth(), a, "").getJsonArray("items");
        assertEquals(List.of(a.id(), "0"), ofB.stream().map(m -> m.asJsonObject().getString("senderUid")).toList(),
                "a back end reads anyone's conversations");
        assertEquals(2, json(http().get("api/v1/chat/users/" + a.id() + "/conversations/" + b.id() + "/sync", shop.auth()))
                .getJsonArray("items").size());
        var recalled = chats.recall(a, shop.auth(), b, 1);
        assertEquals(200, recalled.statusCode(), recalled.body());
        assertTrue(json(recalled).getBoolean("recalled"), "on a's behalf, within a's window");
        assertEquals(shop.id(), recallEvent(json(recalled).getString("msgId")).getString("by"), "the recall names who made it");
        assertProblem(chats.recall(a, shop.auth(), b, 2), 403, "not-sender");
        assertProblem(http().post("api/v1/admin/chat/messages/recall", shop.auth(),
                "{\"owner\":\"" + a.id() + "\",\"peer\":\"" + b.id() + "\",\"seq\":2}"), 403, "forbidden");
    }

    @Test
    void settingsRoundTripWithDefaultsPartialChangesAndValidation() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User c = chats.user();
        String mine = "api/v1/chat/users/me/settings";
        JsonObject defaults = json(http().get(mine, a.auth()));
        assertTrue(defaults.getBoolean("readReceipts"), defaults.toString());
        assertEquals("full", defaults.getString("pushPreview"));

        var changed = http().put(mine, a.auth(), "{\"pushPreview\":\"sender\"}");
        assertEquals(200, changed.statusCode(), changed.body());
        assertEquals("sender", json(changed).getString("pushPreview"));
        assertTrue(json(changed).getBoolean("readReceipts"), "an absent field stays as it is");
        assertEquals(200, http().put(mine, a.auth(), "{\"readReceipts\":false}").statusCode());
        JsonObject now = json(http().get("api/v1/chat/users/" + a.id() + "/settings", a.auth()));
        assertFalse(now.getBoolean("readReceipts"));
        assertEquals("sender", now.getString("pushPreview"));

        assertProblem(http().put(mine, a.auth(), "{\"pushPreview\":\"everything\"}"), 400, "invalid-push-preview");
        assertEquals("sender", json(http().get(mine, a.auth())).getString("pushPreview"), "a refused change changes nothing");
        assertProblem(http().get("api/v1/chat/users/" + a.id() + "/settings", c.auth()), 403, "forbidden");
        assertProblem(http().put("api/v1/chat/users/" + a.id() + "/settings", c.auth(), "{\"readReceipts\":true}"), 403, "forbidden");

        // operators and back ends read and write anyone's
        assertEquals("sender", json(http().get("api/v1/chat/users/" + a.id() + "/settings", ADMIN)).getString("pushPreview"));
        var byAdmin = http().put("api/v1/chat/users/" + a.id() + "/settings", ADMIN, "{\"readReceipts\":true,\"pushPreview\":\"none\"}");
        assertEquals(200, byAdmin.statusCode(), byAdmin.body());
        assertEquals("none", json(http().get(mine, a.auth())).getString("pushPreview"));
        assertProblem(http().put("api/v1/chat/users/42/settings", ADMIN, "{\"readReceipts\":true}"), 404, "not-found");
    }
}
