package io.roost.chat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.roost.platform.json.Jsonp;
import io.roost.platform.problem.ProblemException;
import jakarta.json.JsonObject;
import org.junit.jupiter.api.Test;

class ChatRulesTest {

    static JsonObject text(String t) {
        return Jsonp.PROVIDER.createObjectBuilder().add("text", t).build();
    }

    static String problem(Runnable r) {
        return assertThrows(ProblemException.class, r::run).type();
    }

    @Test
    void sendIdsAreOneToSixtyFourSafeCharacters() {
        for (String ok : new String[] {"a", "A-1_b.c:d", "x".repeat(64), "0"}) {
            assertEquals(ok, ChatRules.checkSendId(ok));
        }
        for (String bad : new String[] {null, "", "x".repeat(65), "a b", "a/b", "é", "a\n", "a;b"}) {
            assertEquals("invalid-send-id", problem(() -> ChatRules.checkSendId(bad)), String.valueOf(bad));
        }
    }

    @Test
    void typesAndPriorities() {
        ChatRules.TYPES.forEach(ChatRules::checkType);
        assertEquals("invalid-type", problem(() -> ChatRules.checkType("video")));
        assertEquals("invalid-type", problem(() -> ChatRules.checkType(null)));
        assertEquals(9, ChatRules.checkPriority(9));
        assertEquals("invalid-priority", problem(() -> ChatRules.checkPriority(10)));
        assertEquals("invalid-priority", problem(() -> ChatRules.checkPriority(-1)));
    }

    @Test
    void bodiesFitTheirTypeAndTheLimit() {
        ChatRules.checkBody("text", text("hi"), 100);
        assertEquals("invalid-body", problem(() -> ChatRules.checkBody("text", text(""), 100)));
        assertEquals("invalid-body", problem(() -> ChatRules.checkBody("text", null, 100)));
        ProblemException big = assertThrows(ProblemException.class, () -> ChatRules.checkBody("text", text("x".repeat(100)), 100));
        assertEquals(413, big.status());
        assertEquals("body-too-large", big.type());
        // multi-byte characters count as bytes: 40 × 3 bytes > 100
        assertEquals("body-too-large", problem(() -> ChatRules.checkBody("text", text("€".repeat(40)), 100)));

        JsonObject image = Jsonp.PROVIDER.createObjectBuilder().add("media", Jsonp.PROVIDER.createObjectBuilder()
                .add("url", "https://cdn.example/a.png").add("size", 1234).add("mime", "image/png").add("width", 10).add("height", 20)).build();
        ChatRules.checkBody("image", image, 1000);
        assertEquals("invalid-body", problem(() -> ChatRules.checkBody("image", text("not media"), 1000)));
        JsonObject ftp = Jsonp.PROVIDER.createObjectBuilder().add("media", Jsonp.PROVIDER.createObjectBuilder()
                .add("url", "ftp://x").add("size", 1).add("mime", "a/b")).build();
        assertEquals("invalid-body", problem(() -> ChatRules.checkBody("file", ftp, 1000)));
        JsonObject negative = Jsonp.PROVIDER.createObjectBuilder().add("media", Jsonp.PROVIDER.createObjectBuilder()
                .add("url", "https://x").add("size", 1).add("mime", "audio/ogg").add("duration", -5)).build();
        assertEquals("invalid-body", problem(() -> ChatRules.checkBody("voice", negative, 1000)));

        JsonObject here = Jsonp.PROVIDER.createObjectBuilder().add("location", Jsonp.PROVIDER.createObjectBuilder()
                .add("lat", 52.5).add("lon", 13.4)).build();
        ChatRules.checkBody("location", here, 1000);
        JsonObject nowhere = Jsonp.PROVIDER.createObjectBuilder().add("location", Jsonp.PROVIDER.createObjectBuilder()
                .add("lat", 91).add("lon", 0)).build();
        assertEquals("invalid-body", problem(() -> ChatRules.checkBody("location", nowhere, 1000)));
    }

    @Test
    void previewsAndHashes() {
        assertEquals("hi", ChatRules.preview("text", text("hi")));
        assertEquals(ChatRules.PREVIEW_CHARS, ChatRules.preview("text", text("y".repeat(500))).length());
        assertEquals("[image]", ChatRules.preview("image", Jsonp.PROVIDER.createObjectBuilder().add("media", Jsonp.PROVIDER
                .createObjectBuilder()).build()));
        SendCommand a = new SendCommand(1, 2, "rest", "s1", "text", text("hi"), null, 0, false);
        assertArrayEquals(ChatRules.hash(a), ChatRules.hash(new SendCommand(1, 2, "other-device", "s2", "text", text("hi"), null, 0, false)),
                "the hash covers the content, not the envelope");
        assertFalse(java.util.Arrays.equals(ChatRules.hash(a), ChatRules.hash(new SendCommand(1, 2, "rest", "s1", "text", text("hi!"), null, 0, false))));
        assertFalse(java.util.Arrays.equals(ChatRules.hash(a), ChatRules.hash(new SendCommand(1, 3, "rest", "s1", "text", text("hi"), null, 0, false))));
    }
}
