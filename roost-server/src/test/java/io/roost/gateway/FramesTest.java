package io.roost.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.platform.json.Jsonp;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

/** The frame envelope written straight out is the one the builder makes. */
class FramesTest {

    @Test
    void aFrameIsTheEnvelopeThenTheFieldsInOrder() {
        JsonObject fields = Jsonp.PROVIDER.createObjectBuilder().add("msgId", "42").add("seq", 7)
                .add("body", Jsonp.PROVIDER.createObjectBuilder().add("text", "line\n\"quoted\"")).add("recalled", true).build();
        String text = Frames.frame("chatMsg", fields);
        JsonObject frame = read(text);
        assertEquals(expected("chatMsg", fields, frame.getJsonNumber("tm").longValue()), text);
        assertTrue(Math.abs(frame.getJsonNumber("tm").longValue() - System.currentTimeMillis()) < 60_000);
    }

    @Test
    void fieldsNamedAsTheEnvelopesReplaceItsValuesInPlace() {
        JsonObject fields = Jsonp.PROVIDER.createObjectBuilder().add("seq", 1).add("type", "other").build();
        JsonObject frame = read(Frames.frame("chatMsg", fields));
        assertEquals("other", frame.getString("type"));
        assertEquals(java.util.List.of("v", "type", "tm", "seq"), java.util.List.copyOf(frame.keySet()));
    }

    @Test
    void noFieldsIsTheEnvelopeAlone() {
        JsonObject frame = read(Frames.frame("pong", JsonObject.EMPTY_JSON_OBJECT));
        assertEquals(java.util.Set.of("v", "type", "tm"), frame.keySet());
    }

    @Test
    void numbersAreTakenWholeAndInRangeOrNotAtAll() {
        JsonObject n = read("{\"a\":3,\"b\":2.9,\"c\":4294967299,\"d\":\"3\",\"e\":9223372036854775807,\"f\":18446744073709551617,"
                + "\"g\":-2147483648,\"h\":3.0}");
        assertEquals(3, Frames.smallInt(n.get("a")));
        assertEquals(java.util.Arrays.asList(null, null, null, null), java.util.stream.Stream.of("b", "c", "d", "h")
                .map(k -> Frames.smallInt(n.get(k))).toList(), "not whole, beyond an int, a string, written with a fraction");
        assertEquals(Integer.MIN_VALUE, Frames.smallInt(n.get("g")));
        assertEquals(4294967299L, Frames.wholeLong(n.get("c")));
        assertEquals(Long.MAX_VALUE, Frames.wholeLong(n.get("e")));
        assertEquals(null, Frames.wholeLong(n.get("f")), "2^64 + 1 is not 1");
        assertEquals(null, Frames.smallInt(null));
    }

    /** What the builder gives for the envelope with this tm and the fields. */
    private static String expected(String type, JsonObject fields, long tm) {
        JsonObjectBuilder b = Jsonp.PROVIDER.createObjectBuilder().add("v", Frames.VERSION).add("type", type).add("tm", tm);
        fields.forEach(b::add);
        return b.build().toString();
    }

    private static JsonObject read(String text) {
        return Jsonp.PROVIDER.createReader(new StringReader(text)).readObject();
    }
}
