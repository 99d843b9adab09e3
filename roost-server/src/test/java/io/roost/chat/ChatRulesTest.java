package io.roost.chat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.roost.platform.json.Jsonp;
import io.roost.platform.problem.ProblemException;
import jakarta.json.JsonObject;
import java.util.List;
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
        assertEquals("invalid-type", problem(() -> ChatRules.checkType("sticker")));
        assertEquals("invalid-type", problem(() -> ChatRules.checkType(null)));
        assertEquals(9, ChatRules.checkPriority(9));
        assertEquals("invalid-priority", problem(() -> ChatRules.checkPriority(10)));
        assertEquals("invalid-priority", problem(() -> ChatRules.checkPriority(-1)));
    }

    /** docs/api.md: the limit counts the body object's compact JSON in UTF-8, {@code {"text":"…"}} and escapes included. */
    @Test
    void theBodyLimitCountsTheBodysJsonNotItsText() {
        assertEquals(16, ChatRules.bytes(text("hello")), "{\"text\":\"hello\"}");
        ChatRules.checkBody("text", text("x".repeat(89)), 100); // 11 bytes of JSON around 89 characters: exactly 100
        assertEquals("body-too-large", problem(() -> ChatRules.checkBody("text", text("x".repeat(90)), 100)));
        assertEquals(11 + 2 + 6 + 3 + 4, ChatRules.bytes(text("\"\u0001€\uD83D\uDE00")), "a quote escaped, a control character as \\u0001, UTF-8 of the rest");
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
    void bodiesHaveTheirTypesFieldsAndNothingElse() {
        for (String bad : new String[] {
                "{\"text\":\"hi\",\"media\":\"x\"}", "{\"text\":\"hi\",\"location\":{}}", "{\"text\":7}", "{}"}) {
            for (String type : new String[] {"text", "custom", "system"}) {
                assertEquals("invalid-body", problem(() -> ChatRules.checkBody(type, json(bad), 1000)), type + " " + bad);
            }
        }
        String media = "\"url\":\"https://cdn.example/a.png\",\"size\":12,\"mime\":\"image/png\"";
        ChatRules.checkBody("image", json("{\"media\":{" + media + ",\"width\":" + Integer.MAX_VALUE + ",\"name\":\"a.png\"}}"), 1000);
        for (String bad : new String[] {
                "{\"media\":{" + media + "},\"text\":\"caption\"}", // a field beside media
                "{\"media\":{" + media + ",\"bytes\":\"AAAA\"}}", // a field media does not have
                "{\"media\":\"https://cdn.example/a.png\"}",
                "{\"media\":{" + media.replace("12", "1.5") + "}}", // size not whole
                "{\"media\":{" + media.replace("12", "\"12\"") + "}}", // size a string
                "{\"media\":{" + media + ",\"width\":" + (Integer.MAX_VALUE + 1L) + "}}", // width beyond an int
                "{\"media\":{" + media + ",\"duration\":99999999999999999999}}", // beyond a long
                "{\"media\":{" + media + ",\"name\":" + "7}}",
                "{\"media\":{" + media + ",\"name\":\"" + "n".repeat(ChatRules.SHORT_TEXT_CHARS + 1) + "\"}}",
                "{\"media\":{" + media.replace("image/png", "") + "}}"}) {
            assertEquals("invalid-body", problem(() -> ChatRules.checkBody("image", json(bad), 2000)), bad);
        }
        // a stored file: its id (and a name to show); the server describes the rest, so the client may not
        ChatRules.checkBody("video", json("{\"media\":{\"id\":\"7300000000000000001\",\"name\":\"clip.mp4\"}}"), 1000);
        for (String bad : new String[] {"{\"media\":{\"id\":\"73\",\"size\":12}}", "{\"media\":{\"id\":73}}",
                "{\"media\":{\"id\":\"-1\"}}", "{\"media\":{\"id\":\"x\"}}", "{\"media\":{\"id\":\"73\",\"external\":true}}"}) {
            assertEquals("invalid-body", problem(() -> ChatRules.checkBody("image", json(bad), 2000)), bad);
        }
        // PostgreSQL cannot store U+0000 in text or jsonb: refused in any string of the body
        for (String nul : List.of("{\"text\":\"a\\u0000b\"}", "{\"media\":{" + media + ",\"name\":\"\\u0000\"}}",
                "{\"location\":{\"lat\":1,\"lon\":2,\"title\":\"x\\u0000\"}}")) {
            String type = nul.contains("media") ? "file" : nul.contains("location") ? "location" : "text";
            assertEquals("invalid-body", problem(() -> ChatRules.checkBody(type, json(nul), 1000)), nul);
        }
        ChatRules.checkBody("location", json("{\"location\":{\"lat\":1,\"lon\":2,\"title\":\"Berlin\"}}"), 1000);
        for (String bad : new String[] {
                "{\"location\":{}}", "{\"location\":{\"lat\":1,\"lon\":2,\"title\":3}}",
                "{\"location\":{\"lat\":1,\"lon\":2,\"alt\":3}}", "{\"location\":{\"lat\":\"1\",\"lon\":2}}"}) {
            assertEquals("invalid-body", problem(() -> ChatRules.checkBody("location", json(bad), 1000)), bad);
        }
    }

    @Test
    void aStoredBodyOfAnotherShapeShowsItsFieldsAsAbsent() {
        ChatMessage m = new ChatMessage(1, 2, 3, 4, 2, "s", "image", json("{\"media\":\"x\",\"location\":{\"lat\":\"n\"}}"), null, 0,
                java.time.OffsetDateTime.now(), false, false);
        MessageView v = MessageView.of(m);
        assertEquals(null, v.media());
        assertEquals(null, v.location());
        MessageView partial = MessageView.of(new ChatMessage(1, 2, 3, 4, 2, "s", "image",
                json("{\"media\":{\"url\":\"https://x\",\"size\":\"big\",\"width\":\"wide\"}}"), null, 0, java.time.OffsetDateTime.now(), false, false));
        assertEquals("https://x", partial.media().url());
        assertEquals(null, partial.media().size());
        assertEquals(null, partial.media().width());
    }

    static JsonObject json(String text) {
        try (var reader = Jsonp.PROVIDER.createReader(new java.io.StringReader(text))) {
            return reader.readObject();
        }
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
