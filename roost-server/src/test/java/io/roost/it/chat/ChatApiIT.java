package io.roost.it.chat;

import static io.roost.it.Http.json;
import static io.roost.it.Problems.assertProblem;
import static io.roost.it.chat.Chats.sid;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.roost.client.device.Conversation;
import io.roost.client.device.Message;
import io.roost.client.device.RoostDevice;
import io.roost.it.AtOnce;
import io.roost.it.DeployedRoost;
import io.roost.it.Devices;
import io.roost.it.Devices.Recorder;
import io.roost.it.Http;
import io.roost.it.TestUsers.User;
import io.roost.it.TopicEvents;
import io.roost.it.WsDevice;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One-to-one chat over REST: sends and resends, conversations, history, delete for me, every refusal, events and pushes.
 * Devices are the client library's; the two socket-send tests keep raw frames (a frame re-sent after a drop, refusal codes of malformed frames).
 */
class ChatApiIT extends DeployedRoost {

    static final Duration WITHIN = Duration.ofSeconds(20);

    /** The roost-chat-events, by msgId. */
    @RegisterExtension
    static final TopicEvents events = new TopicEvents("roost-chat-events", "msgId");

    Chats chats() {
        return new Chats(baseUrl);
    }

    @Test
    void aMessageIsStoredForBothSidesWithOneSeqAndAResendGetsTheSameAnswer() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.user();
        String s1 = sid();
        JsonObject first = chats.sendText(a, b, s1, "hello b");
        assertEquals(s1, first.getString("sendId"));
        assertEquals(1, first.getInt("seq"));
        assertTrue(first.getJsonNumber("tm").longValue() > 0);
        String msgId = first.getString("msgId");

        var again = chats.send(a.auth(), "\"peer\":\"" + b.id() + "\",\"sendId\":\"" + s1 + "\",\"type\":\"text\",\"text\":\"hello b\"");
        assertEquals(200, again.statusCode(), again.body());
        assertEquals(first, json(again), "a resend gets the stored answer");
        assertProblem(chats.send(a.auth(), "\"peer\":\"" + b.id() + "\",\"sendId\":\"" + s1 + "\",\"type\":\"text\",\"text\":\"other\""),
                409, "send-id-conflict");

        JsonObject reply = chats.sendText(b, a, sid(), "hi a");
        assertEquals(2, reply.getInt("seq"));

        for (User owner : List.of(a, b)) {
            User peer = owner == a ? b : a;
            JsonArray items = chats.items(owner, peer);
            assertEquals(2, items.size(), items.toString());
            assertEquals(msgId, items.getJsonObject(0).getString("msgId"));
            assertEquals("hello b", items.getJsonObject(0).getString("text"));
            assertEquals(a.id(), items.getJsonObject(0).getString("senderUid"));
            assertEquals(reply.getString("msgId"), items.getJsonObject(1).getString("msgId"));
            assertEquals(peer.id(), items.getJsonObject(0).getString("peer"));
        }
        JsonObject ofA = chats.conversation(a, b);
        assertEquals(2, ofA.getInt("lastSeq"));
        assertEquals(1, ofA.getInt("unread"), "b's message is unread for a; a's own is not");
        assertEquals("hi a", ofA.getString("lastPreview"));
        JsonObject ofB = chats.conversation(b, a);
        assertEquals(1, ofB.getInt("unread"));

        // sync: nothing changed since the version a holds; a new message moves it
        long version = ofA.getJsonNumber("syncVersion").longValue();
        var since = json(http().get("api/v1/chat/users/me/conversations?since=" + version, a.auth()));
        assertEquals(0, since.getJsonArray("items").size(), since.toString());
        chats.sendText(b, a, sid(), "third");
        since = json(http().get("api/v1/chat/users/me/conversations?since=" + version, a.auth()));
        assertEquals(1, since.getJsonArray("items").size(), since.toString());
        assertTrue(since.getJsonArray("items").getJsonObject(0).getJsonNumber("syncVersion").longValue() > version);

        // keyset both ways
        JsonObject newest = json(http().get("api/v1/chat/users/me/conversations/" + b.id() + "/messages?limit=2", a.auth()));
        assertEquals(List.of(2, 3), newest.getJsonArray("items").stream().map(m -> m.asJsonObject().getInt("seq")).toList());
        assertEquals("2", newest.getString("next"));
        JsonObject older = json(http().get("api/v1/chat/users/me/conversations/" + b.id() + "/messages?before=2&limit=2", a.auth()));
        assertEquals(List.of(1), older.getJsonArray("items").stream().map(m -> m.asJsonObject().getInt("seq")).toList());
        assertTrue(older.isNull("next"));
        JsonObject after = json(http().get("api/v1/chat/users/me/conversations/" + b.id() + "/messages?after=1&limit=1", a.auth()));
        assertEquals(2, after.getJsonArray("items").getJsonObject(0).getInt("seq"));
        assertEquals("2", after.getString("next"));

        // the event went to roost-chat-events through the outbox
        JsonObject event = events.events(msgId).poll(30, TimeUnit.SECONDS);
        assertNotNull(event, "no roost-chat-events message for " + msgId);
        assertEquals(a.id(), event.getString("from"));
        assertEquals(b.id(), event.getString("to"));
        assertEquals(1, event.getInt("seq"));
        assertEquals("text", event.getString("msgType"));
        assertEquals("hello b", event.getJsonObject("body").getString("text"));
    }

    @Test
    void mediaLocationAndQuotes() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.user();
        var image = chats.send(a.auth(), "\"peer\":\"" + b.id() + "\",\"sendId\":\"" + sid() + "\",\"type\":\"image\",\"media\":{\"url\":"
                + "\"https://cdn.example/p.png\",\"size\":2048,\"mime\":\"image/png\",\"width\":640,\"height\":480}");
        assertEquals(201, image.statusCode(), image.body());
        var here = chats.send(b.auth(), "\"peer\":\"" + a.id() + "\",\"sendId\":\"" + sid() + "\",\"type\":\"location\",\"location\":"
                + "{\"lat\":52.52,\"lon\":13.4,\"title\":\"Berlin\"},\"quote\":\"" + json(image).getString("msgId") + "\",\"priority\":3");
        assertEquals(201, here.statusCode(), here.body());
        JsonArray items = chats.items(a, b);
        assertEquals(640, items.getJsonObject(0).getJsonObject("media").getInt("width"));
        assertEquals("image/png", items.getJsonObject(0).getJsonObject("media").getString("mime"));
        assertEquals("Berlin", items.getJsonObject(1).getJsonObject("location").getString("title"));
        assertEquals(json(image).getString("msgId"), items.getJsonObject(1).getString("quote"));
        assertEquals(3, items.getJsonObject(1).getInt("priority"));
        assertEquals("[location]", chats.conversation(a, b).getString("lastPreview"));
    }

    @Test
    void badInputIsRefusedAndWritesNothing() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.user();
        User c = chats.user();
        String to = "\"peer\":\"" + b.id() + "\",";
        assertProblem(chats.send(a.auth(), to + "\"type\":\"text\",\"text\":\"x\""), 400, "invalid-send-id");
        assertProblem(chats.send(a.auth(), to + "\"sendId\":\"has space\",\"type\":\"text\",\"text\":\"x\""), 400, "invalid-send-id");
        assertProblem(chats.send(a.auth(), to + "\"sendId\":\"" + "x".repeat(65) + "\",\"type\":\"text\",\"text\":\"x\""), 400, "invalid-send-id");
        assertProblem(chats.send(a.auth(), to + "\"sendId\":\"" + sid() + "\",\"type\":\"sticker\",\"text\":\"x\""), 400, "invalid-type");
        assertProblem(chats.send(a.auth(), to + "\"sendId\":\"" + sid() + "\",\"type\":\"text\""), 400, "invalid-body");
        assertProblem(chats.send(a.auth(), to + "\"sendId\":\"" + sid() + "\",\"type\":\"image\",\"text\":\"x\""), 400, "invalid-body");
        assertProblem(chats.send(a.auth(), to + "\"sendId\":\"" + sid() + "\",\"type\":\"text\",\"text\":\"a\\u0000b\""), 400, "invalid-body");
        assertProblem(chats.send(a.auth(), to + "\"sendId\":\"" + sid() + "\",\"type\":\"text\",\"text\":\"x\",\"priority\":10"), 400,
                "invalid-priority");
        assertProblem(chats.send(a.auth(), to + "\"sendId\":\"" + sid() + "\",\"type\":\"text\",\"text\":\"" + "y".repeat(17_000) + "\""), 413,
                "body-too-large");
        assertProblem(chats.send(a.auth(), "\"peer\":\"" + a.id() + "\",\"sendId\":\"" + sid() + "\",\"type\":\"text\",\"text\":\"x\""), 400,
                "self-message");
        assertProblem(chats.send(a.auth(), "\"peer\":\"42\",\"sendId\":\"" + sid() + "\",\"type\":\"text\",\"text\":\"x\""), 404, "not-found");
        assertProblem(chats.send(a.auth(), "\"peer\":\"abc\",\"sendId\":\"" + sid() + "\",\"type\":\"text\",\"text\":\"x\""), 400, "invalid-id");
        assertProblem(chats.send(a.auth(), "\"sendId\":\"" + sid() + "\",\"type\":\"text\",\"text\":\"x\""), 400, "validation-failed");
        assertProblem(chats.send(a.auth(), to + "\"from\":\"" + c.id() + "\",\"sendId\":\"" + sid() + "\",\"type\":\"text\",\"text\":\"x\""), 403,
                "forbidden");
        assertProblem(chats.send(a.auth(), to + "\"sendId\":\"" + sid() + "\",\"type\":\"system\",\"text\":\"x\""), 403, "forbidden");
        assertProblem(chats.send(Http.ADMIN, to + "\"sendId\":\"" + sid() + "\",\"type\":\"text\",\"text\":\"x\""), 400, "from-required");
        // a quote of a message of another conversation
        String elsewhere = chats.sendText(a, c, sid(), "for c").getString("msgId");
        assertProblem(chats.send(a.auth(), to + "\"sendId\":\"" + sid() + "\",\"type\":\"text\",\"text\":\"x\",\"quote\":\"" + elsewhere + "\""),
                400, "invalid-quote");
        assertNull(chats.conversation(a, b), "nothing was written for a-b");
        assertNull(chats.conversation(b, a));

        String mine = "api/v1/chat/users/me/conversations/" + b.id() + "/messages";
        assertProblem(http().get(mine + "?limit=101", a.auth()), 400, "invalid-limit");
        assertProblem(http().get(mine + "?limit=abc", a.auth()), 400, "invalid-parameter");
        assertProblem(http().get(mine + "?after=1&before=3", a.auth()), 400, "one-cursor");
        assertProblem(http().get(mine + "?after=x", a.auth()), 400, "invalid-cursor");
        assertProblem(http().get("api/v1/chat/users/me/conversations?since=-1", a.auth()), 400, "invalid-cursor");
        assertProblem(http().delete(mine + "/7", a.auth()), 404, "not-found");
    }

    @Test
    void aBlockEitherWayRefusesTheMessageAndWritesNothingButAStoredMessageStaysAccepted() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.user();
        String before = sid();
        JsonObject stored = chats.sendText(a, b, before, "before the block");
        assertEquals(201, http().put("api/v1/social/blocks/" + a.id(), b.auth(), "").statusCode());
        assertProblem(chats.send(a.auth(), "\"peer\":\"" + b.id() + "\",\"sendId\":\"" + sid() + "\",\"type\":\"text\",\"text\":\"x\""), 403,
                "blocked");
        assertProblem(chats.send(b.auth(), "\"peer\":\"" + a.id() + "\",\"sendId\":\"" + sid() + "\",\"type\":\"text\",\"text\":\"x\""), 403,
                "blocked");
        var resend = chats.postText(a, b, before, "before the block");
        assertEquals(200, resend.statusCode(), resend.body());
        assertEquals(stored, json(resend), "a resend of a message stored before the block gets its stored answer");
        assertEquals(1, chats.items(b, a).size(), "the refused ones wrote nothing");
        assertEquals(204, http().delete("api/v1/social/blocks/" + a.id(), b.auth()).statusCode());
        assertEquals(2, chats.sendText(a, b, sid(), "sorry").getInt("seq"), "no seq was spent on the refused ones");
    }

    @Test
    void refusedAndAcceptedSendsInOneBatchEachGetTheirOwnAnswer() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.user();
        User c = chats.user();
        User d = chats.user();
        User gone = chats.user();
        assertEquals(201, http().put("api/v1/social/blocks/" + c.id(), d.auth(), "").statusCode());
        assertEquals(200, http().post("api/v1/accounts/" + gone.id() + "/disable", Http.ADMIN, "").statusCode());
        // sent at once, so that they share send batches: the checks in the claim's statement refuse some rows of a batch
        int each = 8;
        List<Callable<HttpResponse<String>>> sends = new ArrayList<>();
        for (int i = 0; i < each; i++) {
            sends.add(() -> chats.send(a.auth(), "\"peer\":\"" + b.id() + "\",\"sendId\":\"" + sid() + "\",\"type\":\"text\",\"text\":\"ok\""));
            sends.add(() -> chats.send(c.auth(), "\"peer\":\"" + d.id() + "\",\"sendId\":\"" + sid() + "\",\"type\":\"text\",\"text\":\"x\""));
            sends.add(() -> chats.send(a.auth(), "\"peer\":\"" + gone.id() + "\",\"sendId\":\"" + sid() + "\",\"type\":\"text\",\"text\":\"x\""));
        }
        List<HttpResponse<String>> answers = AtOnce.run(sends);
        List<Long> seqs = new ArrayList<>();
        for (int i = 0; i < answers.size(); i++) {
            HttpResponse<String> r = answers.get(i);
            switch (i % 3) {
                case 0 -> {
                    assertEquals(201, r.statusCode(), r.body());
                    seqs.add(json(r).getJsonNumber("seq").longValue());
                }
                case 1 -> assertProblem(r, 403, "blocked");
                default -> assertProblem(r, 404, "not-found");
            }
        }
        assertEquals(LongStream.rangeClosed(1, each).boxed().toList(), seqs.stream().sorted().toList(), "a-b: seqs 1.." + each);
        assertEquals(each, chats.items(b, a).size());
        assertNull(chats.conversation(d, c), "nothing was written for c-d");
        assertNull(chats.conversation(a, gone), "nothing was written for a and the disabled account");
    }

    @Test
    void usersReadOnlyTheirOwnConversationsAndBackEndsSendForThemOrAsTheSystem() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.user();
        User c = chats.user();
        chats.sendText(a, b, sid(), "private");
        assertProblem(http().get("api/v1/chat/users/" + a.id() + "/conversations", c.auth()), 403, "forbidden");
        assertProblem(http().get("api/v1/chat/users/" + a.id() + "/conversations/" + b.id() + "/messages", c.auth()), 403, "forbidden");
        assertProblem(http().delete("api/v1/chat/users/" + a.id() + "/conversations/" + b.id() + "/messages/1", c.auth()), 403,
                "forbidden");
        assertEquals(1, chats.messages(a, Http.ADMIN, b, "").getJsonArray("items").size(), "operators read anyone's");
        assertEquals(401, http().get("api/v1/chat/users/me/conversations", null).statusCode());

        String s = sid();
        var onBehalf = chats.send(Http.ADMIN, "\"from\":\"" + a.id() + "\",\"peer\":\"" + b.id() + "\",\"sendId\":\"" + s
                + "\",\"type\":\"text\",\"text\":\"from the shop\"");
        assertEquals(201, onBehalf.statusCode(), onBehalf.body());
        assertEquals(2, json(onBehalf).getInt("seq"));
        assertEquals(200, chats.send(Http.ADMIN, "\"from\":\"" + a.id() + "\",\"peer\":\"" + b.id() + "\",\"sendId\":\"" + s
                + "\",\"type\":\"text\",\"text\":\"from the shop\"").statusCode(), "the back end's resend");
        // the same sendId from another device of a (the REST device) is another message
        assertEquals(3, chats.sendText(a, b, s, "from a").getInt("seq"));

        var system = chats.send(Http.ADMIN, "\"from\":\"" + a.id() + "\",\"peer\":\"" + b.id() + "\",\"sendId\":\"" + sid()
                + "\",\"type\":\"system\",\"text\":\"You are now connected\"");
        assertEquals(201, system.statusCode(), system.body());
        JsonObject last = chats.messages(b, a, "?after=3").getJsonArray("items").getJsonObject(0);
        assertEquals("0", last.getString("senderUid"));
        assertEquals("system", last.getString("type"));
        assertEquals(1, chats.conversation(a, b).getInt("unread"), "a system message is unread for both");
        assertEquals(4, chats.conversation(b, a).getInt("unread"));
    }

    @Test
    void blockedWordsAreMaskedAndDeleteForMeLeavesATombstone() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.user();
        chats.sendText(a, b, sid(), "what a RoostBadWord day");
        assertEquals("what a ************ day", chats.items(b, a).getJsonObject(0).getString("text"));
        chats.sendText(b, a, sid(), "second");
        long before = chats.conversation(a, b).getJsonNumber("syncVersion").longValue();
        assertEquals(204, http().delete("api/v1/chat/users/me/conversations/" + b.id() + "/messages/1", a.auth()).statusCode());
        assertEquals(204, http().delete("api/v1/chat/users/me/conversations/" + b.id() + "/messages/1", a.auth()).statusCode(),
                "deleting twice is fine");
        JsonArray mine = chats.items(a, b);
        assertEquals(2, mine.size(), "the tombstone keeps its seq");
        assertTrue(mine.getJsonObject(0).getBoolean("deleted"));
        assertNull(mine.getJsonObject(0).getString("text", null), "a tombstone has no content");
        assertFalse(mine.getJsonObject(1).getBoolean("deleted"));
        assertFalse(chats.items(b, a).getJsonObject(0).getBoolean("deleted"), "only my timeline");
        assertTrue(chats.conversation(a, b).getJsonNumber("syncVersion").longValue() > before, "other devices see the change");
        // a deleted message cannot be quoted any more
        String msgId = chats.items(b, a).getJsonObject(0).getString("msgId");
        assertProblem(chats.send(a.auth(), "\"peer\":\"" + b.id() + "\",\"sendId\":\"" + sid() + "\",\"type\":\"text\",\"text\":\"x\",\"quote\":\""
                + msgId + "\""), 400, "invalid-quote");
    }

    @Test
    void customMessagesPassTheContentFilterToo() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.user();
        var custom = chats.send(a.auth(), "\"peer\":\"" + b.id() + "\",\"sendId\":\"" + sid()
                + "\",\"type\":\"custom\",\"text\":\"a roostawfulword card\"");
        assertEquals(201, custom.statusCode(), custom.body());
        assertEquals("a ************** card", chats.items(b, a).getJsonObject(0).getString("text"));
        assertEquals("a ************** card", chats.conversation(b, a).getString("lastPreview"));
    }

    @Test
    void aFileNameAndALocationTitlePassTheContentFilterToo() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.user();
        var file = chats.send(a.auth(), "\"peer\":\"" + b.id() + "\",\"sendId\":\"" + sid() + "\",\"type\":\"file\",\"media\":{\"url\":"
                + "\"https://cdn.example/f.pdf\",\"size\":10,\"mime\":\"application/pdf\",\"name\":\"roostbadword.pdf\"}");
        assertEquals(201, file.statusCode(), file.body());
        var here = chats.send(a.auth(), "\"peer\":\"" + b.id() + "\",\"sendId\":\"" + sid() + "\",\"type\":\"location\",\"location\":"
                + "{\"lat\":1.5,\"lon\":2.5,\"title\":\"the RoostAwfulWord bar\"}");
        assertEquals(201, here.statusCode(), here.body());
        JsonArray items = chats.items(b, a);
        assertEquals("************.pdf", items.getJsonObject(0).getJsonObject("media").getString("name"));
        assertEquals("https://cdn.example/f.pdf", items.getJsonObject(0).getJsonObject("media").getString("url"), "the rest is as sent");
        assertEquals("the ************** bar", items.getJsonObject(1).getJsonObject("location").getString("title"));
        assertEquals(1.5, items.getJsonObject(1).getJsonObject("location").getJsonNumber("lat").doubleValue());
    }

    @Test
    void deletingAnUnreadMessageForMeTakesItOutOfMyUnreadCountOnce() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.user();
        for (String text : List.of("one", "two", "three")) {
            chats.sendText(a, b, sid(), text);
        }
        chats.sendText(b, a, sid(), "mine");
        assertEquals(3, chats.conversation(b, a).getInt("unread"));
        String mine = "api/v1/chat/users/me/conversations/" + a.id() + "/messages/";
        for (int twice = 0; twice < 2; twice++) {
            assertEquals(204, http().delete(mine + "2", b.auth()).statusCode());
        }
        assertEquals(2, chats.conversation(b, a).getInt("unread"), "one fewer, however often it is deleted");
        assertEquals(204, http().delete(mine + "4", b.auth()).statusCode());
        assertEquals(2, chats.conversation(b, a).getInt("unread"), "my own message was never unread");
        assertEquals(1, chats.conversation(a, b).getInt("unread"), "the peer's count is the peer's (b's own message, unread for a)");
        // a recall takes a message out of the count once too: not again for the copy b deleted already
        Http.ok(chats.recall(a, a.auth(), b, 2));
        assertEquals(2, chats.conversation(b, a).getInt("unread"), "deleted, then recalled: one fewer in all");
        Http.ok(chats.recall(a, a.auth(), b, 3));
        assertEquals(1, chats.conversation(b, a).getInt("unread"));
        // a recalled message cannot be quoted any more, by either side
        String recalled = chats.items(b, a).getJsonObject(2).getString("msgId");
        for (User[] fromTo : new User[][] {{a, b}, {b, a}}) {
            assertProblem(chats.send(fromTo[0].auth(), "\"peer\":\"" + fromTo[1].id() + "\",\"sendId\":\"" + sid()
                    + "\",\"type\":\"text\",\"text\":\"x\",\"quote\":\"" + recalled + "\""), 400, "invalid-quote");
        }
    }

    @Test
    void connectedDevicesOfBothSidesGetTheChatMsgNotice() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.user();
        Recorder bHeard = new Recorder();
        Recorder aHeard = new Recorder();
        try (RoostDevice bDevice = Devices.online(baseUrl, b, "web", "w", bHeard);
                RoostDevice aDevice = Devices.online(baseUrl, a, "web", "w", aHeard)) {
            JsonObject sent = chats.sendText(a, b, sid(), "are you there");
            // each side's device has it in its conversation with the other: from a, to b
            for (Message m : List.of(bHeard.awaitMessages(Conversation.user(a.id()), 1, WITHIN).get(0),
                    aHeard.awaitMessages(Conversation.user(b.id()), 1, WITHIN).get(0))) {
                assertEquals(sent.getString("msgId"), m.msgId(), m.toString());
                assertEquals(1, m.seq());
                assertEquals(a.id(), m.senderUid());
                assertEquals("are you there", m.text());
            }
        }
    }

    /**
     * A device that loses its network right after a send never sees the answer; on its next
     * connection it sends the same frame again and gets the one stored message's answer, whether
     * the first send was stored before the drop or not.
     */
    @Test
    void aSendRepeatedOnTheDevicesNextConnectionAfterADropIsStoredOnce() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.user();
        String sendId = sid();
        String frame = "\"op\":\"send\",\"peer\":\"" + b.id() + "\",\"sendId\":\"" + sendId
                + "\",\"msgType\":\"text\",\"body\":{\"text\":\"sent while the network went\"}";
        WsDevice dropped = WsDevice.login(baseUrl, a.token(), "web", "w");
        dropped.sendOpAndDrop("chatOp", frame);
        WsDevice again = WsDevice.login(baseUrl, a.token(), "web", "w");
        try {
            JsonObject answer = again.op("chatOp", frame);
            assertEquals("ok", answer.getString("result"), answer.toString());
            JsonArray stored = chats.items(b, a);
            assertEquals(1, stored.size(), stored.toString());
            assertEquals(stored.getJsonObject(0).getString("msgId"), answer.getString("msgId"));
            assertEquals(sendId, stored.getJsonObject(0).getString("sendId"));
        } finally {
            again.bye();
        }
    }

    @Test
    void aDeviceSendsOverItsWebSocketAndIsAnsweredAfterCommit() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.user();
        WsDevice bDevice = WsDevice.login(baseUrl, b.token(), "web", "w");
        WsDevice aDevice = WsDevice.login(baseUrl, a.token(), "web", "w");
        try {
            String sendId = sid();
            String frame = "\"op\":\"send\",\"peer\":\"" + b.id() + "\",\"sendId\":\"" + sendId
                    + "\",\"msgType\":\"text\",\"body\":{\"text\":\"over the socket\"}";
            JsonObject sent = aDevice.op("chatOp", frame);
            assertEquals("ok", sent.getString("result"), sent.toString());
            assertEquals(sendId, sent.getString("sendId"));
            assertEquals(1, sent.getInt("msgSeq"));
            assertFalse(sent.getBoolean("resent"));
            JsonObject pushed = bDevice.await("chatMsg");
            assertEquals(sent.getString("msgId"), pushed.getString("msgId"), pushed.toString());
            assertEquals("over the socket", pushed.getJsonObject("body").getString("text"));

            // the device timed out and sends again: the same answer, nothing written
            JsonObject again = aDevice.op("chatOp", frame);
            assertEquals(sent.getString("msgId"), again.getString("msgId"), again.toString());
            assertTrue(again.getBoolean("resent"));
            JsonObject other = aDevice.op("chatOp", frame.replace("over the socket", "something else"));
            assertEquals("send-id-conflict", other.getString("code"), other.toString());
            assertEquals("invalid-id", aDevice.op("chatOp", "\"op\":\"send\",\"peer\":\"x\",\"sendId\":\"" + sid()
                    + "\",\"msgType\":\"text\",\"body\":{\"text\":\"x\"}").getString("code"));
            assertEquals("invalid-send-id", aDevice.op("chatOp", "\"op\":\"send\",\"peer\":\"" + b.id()
                    + "\",\"msgType\":\"text\",\"body\":{\"text\":\"x\"}").getString("code"));
            assertEquals("unknown-op", aDevice.op("chatOp", "\"op\":\"shout\"").getString("code"));
            // the frame limit leaves room for the largest body allowed (16 KiB here), so a larger body is answered, not cut off
            String largest = "\"op\":\"send\",\"peer\":\"" + b.id() + "\",\"msgType\":\"text\",\"sendId\":\"";
            JsonObject full = aDevice.op("chatOp", largest + sid() + "\",\"body\":{\"text\":\"" + "x".repeat(16_000) + "\"}");
            assertEquals("ok", full.getString("result"), full.getString("code", ""));
            assertEquals("body-too-large", aDevice.op("chatOp", largest + sid() + "\",\"body\":{\"text\":\"" + "x".repeat(17_000)
                    + "\"}").getString("code"));
            // a body carries its type's fields and nothing else, each of its JSON type: what history and pushes read back
            String send = "\"op\":\"send\",\"peer\":\"" + b.id() + "\",\"sendId\":\"" + sid() + "\",\"msgType\":";
            for (String bad : List.of("\"text\",\"body\":{\"text\":\"hi\",\"media\":\"x\"}", "\"text\",\"body\":{\"text\":\"hi\",\"location\":{}}",
                    "\"image\",\"body\":{\"media\":{\"url\":\"https://x/a.png\",\"size\":1.5,\"mime\":\"image/png\"}}")) {
                assertEquals("invalid-body", aDevice.op("chatOp", send + bad).getString("code"), bad);
            }
            // numbers are whole and in range, not truncated into it; a quote is an id string
            for (String priority : List.of("4294967299", "2.9", "\"3\"")) {
                assertEquals("invalid-priority", aDevice.op("chatOp", send + "\"text\",\"body\":{\"text\":\"x\"},\"priority\":" + priority)
                        .getString("code"), priority);
            }
            assertEquals("invalid-id", aDevice.op("chatOp", send + "\"text\",\"body\":{\"text\":\"x\"},\"quote\":" + sent.getString("msgId"))
                    .getString("code"));
            assertEquals("invalid-limit", aDevice.op("chatOp", "\"op\":\"messages\",\"peer\":\"" + b.id() + "\",\"limit\":4294967297")
                    .getString("code"));
            // the history reads back after all of that (nothing refused was stored)
            assertEquals(2, aDevice.op("chatOp", "\"op\":\"messages\",\"peer\":\"" + b.id() + "\"").getJsonArray("items").size());
            JsonObject history = json(http().get("api/v1/chat/users/me/conversations/" + b.id() + "/messages", a.auth()));
            assertEquals(2, history.getJsonArray("items").size(), history.toString());
        } finally {
            bDevice.bye();
            aDevice.bye();
        }
    }

    @Test
    void aConversationThatDoesNotExistIsNotFoundToEveryReadOfIt() throws Exception {
        Chats chats = chats();
        User a = chats.user();
        User b = chats.user();
        String conversation = "api/v1/chat/users/me/conversations/" + b.id();
        for (HttpResponse<String> r : List.of(http().get(conversation + "/messages", a.auth()),
                http().get(conversation + "/messages?after=0", a.auth()), http().get(conversation + "/sync?after=0", a.auth()),
                http().post(conversation + "/read", a.auth(), "{\"readSeq\":1}"))) {
            assertProblem(r, 404, "not-found");
            assertEquals("No conversation with " + b.id() + ".", json(r).getString("detail"), r.uri().toString());
        }
        try (RoostDevice aDevice = Devices.online(baseUrl, a, "web", "w", new Recorder())) {
            Map<String, ObjectNode> reads = Map.of("messages", RoostDevice.fields(), "sync", RoostDevice.fields().put("after", 0),
                    "read", RoostDevice.fields().put("readSeq", 1));
            for (Map.Entry<String, ObjectNode> read : reads.entrySet()) {
                JsonNode ret = Devices.outcome(aDevice.request("chatOp", read.getKey(), read.getValue().put("peer", b.id())));
                assertEquals("not-found", ret.path("code").asText(ret.toString()), read.getKey());
            }
            // one message makes the conversation, on both sides; an empty page of it is no error
            chats.sendText(b, a, "hi");
            for (User owner : List.of(a, b)) {
                User peer = owner == a ? b : a;
                assertEquals(0, chats.messages(owner, peer, "?after=1").getJsonArray("items").size());
                JsonObject sync = Http.okJson(http().get("api/v1/chat/users/me/conversations/" + peer.id() + "/sync?after=1", owner.auth()));
                assertEquals(1, sync.getInt("lastSeq"), sync.toString());
                assertEquals(0, sync.getJsonArray("items").size());
            }
            JsonNode page = Devices.outcome(aDevice.request("chatOp", "messages", RoostDevice.fields().put("peer", b.id()).put("after", 1)));
            assertEquals("ok", page.path("result").asText(), page.toString());
        }
    }
}
