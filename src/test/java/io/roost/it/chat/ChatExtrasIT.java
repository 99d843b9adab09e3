package io.roost.it.chat;

import static io.roost.it.Http.ADMIN;
import static io.roost.it.Http.json;
import static io.roost.it.Problems.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.DeployedRoost;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import io.roost.it.TopicListener;
import io.roost.it.WsDevice;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One-to-one chat beyond the send: recall (the sender's, within ROOST_CHAT_RECALL_WINDOW — 5 s in
 * the suite's WildFly, pom.xml — and the operator's, audited), catch-up with a gap marker, the
 * conversation ops over a device's socket, and per-user chat settings.
 */
class ChatExtrasIT extends DeployedRoost {

    /** The suite's ROOST_CHAT_RECALL_WINDOW. */
    static final int RECALL_WINDOW_SECONDS = 5;

    static TopicListener events;

    @BeforeAll
    static void listenToChatEvents() throws Exception {
        events = TopicListener.start("roost-chat-events", "msgId");
    }

    @AfterAll
    static void stopListening() {
        if (events != null) {
            events.close();
        }
    }

    User user() throws Exception {
        return TestUsers.registerWithoutPassword(baseUrl, "cx-", "web", "w");
    }

    JsonObject sendText(User from, User to, String text) {
        var r = http().post("api/v1/chat/messages", from.auth(), "{\"peer\":\"" + to.id() + "\",\"sendId\":\"s-" + UUID.randomUUID()
                + "\",\"type\":\"text\",\"text\":\"" + text + "\"}");
        assertEquals(201, r.statusCode(), r.body());
        return json(r);
    }

    HttpResponse<String> recall(User owner, String auth, User peer, long seq) {
        return http().post("api/v1/chat/users/" + owner.id() + "/conversations/" + peer.id() + "/messages/" + seq + "/recall", auth, "");
    }

    JsonArray messages(User owner, User peer) {
        var r = http().get("api/v1/chat/users/me/conversations/" + peer.id() + "/messages?limit=100", owner.auth());
        assertEquals(200, r.statusCode(), r.body());
        return json(r).getJsonArray("items");
    }

    JsonObject conversation(User owner, User peer) {
        return json(http().get("api/v1/chat/users/me/conversations?limit=100", owner.auth())).getJsonArray("items").stream()
                .map(JsonObject.class::cast).filter(c -> c.getString("peer").equals(peer.id())).findFirst().orElseThrow();
    }

    static List<Integer> seqs(JsonArray items) {
        return items.stream().map(m -> m.asJsonObject().getInt("seq")).toList();
    }

    @Test
    void aLongAwayDeviceGetsTheNewestHundredAGapMarkerAndPagesBack() throws Exception {
        User a = user();
        User b = user();
        for (int i = 1; i <= 150; i++) {
            sendText(i % 2 == 0 ? a : b, i % 2 == 0 ? b : a, "m" + i);
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
        assertProblem(http().get("api/v1/chat/users/" + a.id() + "/conversations/" + b.id() + "/sync", user().auth()), 403, "forbidden");
        assertProblem(http().get("api/v1/chat/users/me/conversations/" + b.id() + "/sync?limit=0", a.auth()), 400, "invalid-limit");
    }

    @Test
    void aDeviceListsReadsAndDeletesOverItsSocket() throws Exception {
        User a = user();
        User b = user();
        sendText(a, b, "one");
        sendText(b, a, "two");
        WsDevice aDevice = WsDevice.login(baseUrl, a.token(), "web", "w");
        try {
            JsonObject list = aDevice.op("chatOp", "\"op\":\"conversations\",\"since\":0");
            assertEquals("ok", list.getString("result"), list.toString());
            JsonObject mine = list.getJsonArray("items").getJsonObject(0);
            assertEquals(b.id(), mine.getString("peer"));
            assertEquals(conversation(a, b), mine, "the REST API's view");
            long version = mine.getJsonNumber("syncVersion").longValue();
            assertEquals(0, aDevice.op("chatOp", "\"op\":\"conversations\",\"since\":\"" + version + "\"").getJsonArray("items").size());

            JsonObject page = aDevice.op("chatOp", "\"op\":\"messages\",\"peer\":\"" + b.id() + "\",\"after\":1");
            assertEquals("two", page.getJsonArray("items").getJsonObject(0).getString("text"), page.toString());

            JsonObject deleted = aDevice.op("chatOp", "\"op\":\"delete\",\"peer\":\"" + b.id() + "\",\"msgSeq\":1");
            assertEquals("ok", deleted.getString("result"), deleted.toString());
            assertTrue(messages(a, b).getJsonObject(0).getBoolean("deleted"));
            assertFalse(messages(b, a).getJsonObject(0).getBoolean("deleted"), "only for me");
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

}
