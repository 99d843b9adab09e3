package io.roost.client.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Frames in and out: the envelope, a message in its two shapes (pushed and from history) read the same. */
class FramesTest {

    @Test
    void aFrameHasTheEnvelope() {
        ObjectNode f = Frames.frame("heartbeat");
        assertEquals(1, f.get("v").asInt());
        assertEquals("heartbeat", f.get("type").asText());
        assertTrue(Math.abs(System.currentTimeMillis() - f.get("tm").asLong()) < 60_000);
    }

    @Test
    void whatIsNoFrameIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Frames.decode("not json"));
        assertThrows(IllegalArgumentException.class, () -> Frames.decode("[1,2]"));
        assertThrows(IllegalArgumentException.class, () -> Frames.decode("{\"v\":1}"));
        assertEquals("kick", Frames.decode("{\"v\":1,\"type\":\"kick\",\"reason\":\"node_lost\"}").get("type").asText());
    }

    @Test
    void aPushAndTheSameMessageFromHistoryAreOneMessage() {
        ObjectNode push = Frames.decode("{\"v\":1,\"type\":\"chatMsg\",\"msgId\":\"900\",\"seq\":5,\"from\":\"11\",\"to\":\"22\","
                + "\"senderUid\":\"11\",\"sendId\":\"d1-7\",\"msgType\":\"text\",\"body\":{\"text\":\"hi\"},\"priority\":2,"
                + "\"quote\":\"899\",\"sentAt\":1764040000000}");
        ObjectNode item = Frames.decode("{\"type\":\"text\",\"msgId\":\"900\",\"seq\":5,\"peer\":\"11\",\"senderUid\":\"11\","
                + "\"sendId\":\"d1-7\",\"text\":\"hi\",\"priority\":2,\"quote\":\"899\",\"createdAt\":\"2025-11-25T03:06:40Z\","
                + "\"recalled\":false,\"deleted\":false}");
        Message pushed = Message.pushed(push, "22");
        Message fromHistory = Message.item(Conversation.user("11"), item);
        assertEquals(pushed, fromHistory);
        assertEquals(Conversation.user("11"), pushed.conversation());
        assertEquals("hi", pushed.text());
        assertEquals(Instant.ofEpochMilli(1764040000000L), pushed.sentAt());
    }

    @Test
    void theSendersOtherDeviceFilesItsOwnMessageUnderThePeer() {
        ObjectNode push = Frames.decode("{\"type\":\"chatMsg\",\"msgId\":\"1\",\"seq\":1,\"from\":\"11\",\"to\":\"22\","
                + "\"senderUid\":\"11\",\"msgType\":\"text\",\"body\":{\"text\":\"x\"},\"sentAt\":0}");
        assertEquals(Conversation.user("22"), Message.pushed(push, "11").conversation());
    }

    @Test
    void aGroupPushNamesTheGroupWithItsMentions() {
        ObjectNode push = Frames.decode("{\"type\":\"chatMsg\",\"group\":\"77\",\"msgId\":\"3\",\"seq\":58,\"senderUid\":\"11\","
                + "\"msgType\":\"text\",\"body\":{\"text\":\"all\"},\"mentions\":[\"22\",\"33\"],\"mentionAll\":true,\"sentAt\":0}");
        Message m = Message.pushed(push, "22");
        assertEquals(Conversation.group("77"), m.conversation());
        assertEquals(58, m.seq());
        assertEquals(List.of("22", "33"), m.mentions());
        assertTrue(m.mentionAll());
    }

    @Test
    void aRecalledHistoryItemHasNoBody() {
        ObjectNode item = Frames.decode("{\"type\":\"text\",\"msgId\":\"9\",\"seq\":3,\"senderUid\":\"1\",\"recalled\":true,"
                + "\"deleted\":false,\"priority\":0}");
        Message m = Message.item(Conversation.user("1"), item);
        assertTrue(m.recalled());
        assertFalse(m.deleted());
        assertEquals(null, m.body());
        assertEquals(null, m.text());
    }

    @Test
    void kicksSayWhetherTheDeviceComesBack() {
        for (String reason : List.of("replaced_by_new_login", "kicked_by_admin", "account_disabled", "account_unregistered")) {
            assertFalse(Kick.of(reason).reconnecting(), reason);
        }
        for (String reason : List.of("heartbeat_timeout", "node_lost", "ack_timeout", "a_reason_added_later")) {
            assertTrue(Kick.of(reason).reconnecting(), reason);
        }
    }

    @Test
    void theWebSocketAddressIsTheServersWsPath() {
        assertEquals(URI.create("ws://h:8080/ws"), RoostDevice.websocketUri(URI.create("http://h:8080")));
        assertEquals(URI.create("wss://h/base/ws"), RoostDevice.websocketUri(URI.create("https://h/base/")));
    }
}
