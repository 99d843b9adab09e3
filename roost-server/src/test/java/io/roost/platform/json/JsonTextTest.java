package io.roost.platform.json;

import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link JsonText} writes what Parsson's {@code toString()} writes, and reads back as the same value. */
class JsonTextTest {

    @Test
    void randomValuesGiveParssonsTextAndReadBackEqual() {
        long seed = System.nanoTime();
        System.out.println("JsonTextTest seed " + seed);
        Random rnd = new Random(seed);
        for (int i = 0; i < 2_000; i++) {
            JsonValue v = value(rnd, 0);
            String text = JsonText.of(v);
            assertEquals(v.toString(), text, "seed " + seed);
            assertEquals(v, Jsonp.PROVIDER.createReader(new StringReader(text)).readValue(), "seed " + seed);
        }
    }

    @Test
    void everyControlCharacterQuoteAndBackslashIsEscaped() {
        StringBuilder all = new StringBuilder();
        for (char c = 0; c < 0x80; c++) {
            all.append(c);
        }
        all.append("é中\uD83D\uDE00\u2028");
        JsonValue v = Jsonp.PROVIDER.createValue(all.toString());
        assertEquals(v.toString(), JsonText.of(v));
        assertEquals("\"a\\\"b\\\\c\\n\\u0001\"", JsonText.of(Jsonp.PROVIDER.createValue("a\"b\\c\n\u0001")));
    }

    @Test
    void aTextWrittenInsideAnotherGetsABuilderOfItsOwn() {
        JsonValue inner = Jsonp.PROVIDER.createObjectBuilder().add("a", "x").build();
        String outer = JsonText.text(out -> out.append('[').append(JsonText.of(inner)).append(',').append(JsonText.of(inner)).append(']'));
        assertEquals("[{\"a\":\"x\"},{\"a\":\"x\"}]", outer);
    }

    @Test
    void aLargeTextThenASmallOneAreEachWhole() {
        String large = "y".repeat(100_000);
        assertEquals("\"" + large + "\"", JsonText.of(Jsonp.PROVIDER.createValue(large)));
        assertEquals("\"z\"", JsonText.of(Jsonp.PROVIDER.createValue("z")));
    }

    @Test
    void parsedNumbersKeepTheirText() {
        for (String n : new String[] {"0", "-7", "12345678901234567890123", "1.50", "1e2", "-0.0", "9223372036854775807"}) {
            JsonValue v = Jsonp.PROVIDER.createReader(new StringReader("[" + n + "]")).readArray().get(0);
            assertEquals(v.toString(), JsonText.of(v), n);
        }
    }

    private static JsonValue value(Random rnd, int depth) {
        int kind = rnd.nextInt(depth > 3 ? 7 : 9);
        return switch (kind) {
            case 0 -> Jsonp.PROVIDER.createValue(string(rnd));
            case 1 -> Jsonp.PROVIDER.createValue(rnd.nextLong());
            case 2 -> Jsonp.PROVIDER.createValue(rnd.nextInt());
            case 3 -> Jsonp.PROVIDER.createValue(new BigDecimal(BigInteger.valueOf(rnd.nextLong()), rnd.nextInt(10) - 3));
            case 4 -> Jsonp.PROVIDER.createValue(rnd.nextDouble() * 1e6);
            case 5 -> rnd.nextBoolean() ? JsonValue.TRUE : JsonValue.FALSE;
            case 6 -> JsonValue.NULL;
            case 7 -> {
                JsonObjectBuilder o = Jsonp.PROVIDER.createObjectBuilder();
                for (int i = rnd.nextInt(5); i > 0; i--) {
                    o.add(string(rnd), value(rnd, depth + 1));
                }
                yield o.build();
            }
            default -> {
                JsonArrayBuilder a = Jsonp.PROVIDER.createArrayBuilder();
                for (int i = rnd.nextInt(5); i > 0; i--) {
                    a.add(value(rnd, depth + 1));
                }
                yield a.build();
            }
        };
    }

    /** Mostly ASCII, with control characters, quotes, backslashes and any other char (lone surrogates too). */
    private static String string(Random rnd) {
        StringBuilder s = new StringBuilder();
        for (int i = rnd.nextInt(12); i > 0; i--) {
            int pick = rnd.nextInt(10);
            s.append(pick < 5 ? (char) (' ' + rnd.nextInt(95)) : pick < 7 ? (char) rnd.nextInt(0x20)
                    : pick < 8 ? (rnd.nextBoolean() ? '"' : '\\') : (char) rnd.nextInt(0x10000));
        }
        return s.toString();
    }
}
