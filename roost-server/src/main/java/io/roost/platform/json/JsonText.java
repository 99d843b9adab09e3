package io.roost.platform.json;

import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Compact JSON text of JSON-P values, the same text as their {@code toString()}, written straight
 * into a {@link StringBuilder}. Parsson's {@code toString()} opens a writer, a generator and a
 * synchronized {@code StringWriter} for every value: under chat load, every frame, answer and
 * event went through it, several per message, and it was a tenth of WildFly's allocation.
 */
public final class JsonText {

    private static final char[] HEX = "0123456789abcdef".toCharArray();
    /** A thread's builder grown past this is not kept (a rare large body should not stay in memory). */
    private static final int KEPT_CAPACITY = 16 * 1024;
    /** Each thread's builder, reused: only the finished text is allocated. Empty while in use. */
    private static final ThreadLocal<StringBuilder[]> SCRATCH = ThreadLocal.withInitial(() -> new StringBuilder[] {new StringBuilder(1024)});

    private JsonText() {
    }

    /** The value's JSON text. */
    public static String of(JsonValue value) {
        return text(out -> write(out, value));
    }

    /** The text {@code writer} appends to an empty builder (this thread's, reused). */
    public static String text(Consumer<StringBuilder> writer) {
        StringBuilder[] slot = SCRATCH.get();
        StringBuilder out = slot[0];
        if (out == null) { // taken further up this thread's stack
            out = new StringBuilder(256);
            writer.accept(out);
            return out.toString();
        }
        slot[0] = null;
        try {
            out.setLength(0);
            writer.accept(out);
            return out.toString();
        } finally {
            slot[0] = out.capacity() <= KEPT_CAPACITY ? out : new StringBuilder(1024);
        }
    }

    /** Appends the value's JSON text. */
    public static StringBuilder write(StringBuilder out, JsonValue value) {
        switch (value.getValueType()) {
            case OBJECT -> {
                out.append('{');
                boolean first = true;
                for (Map.Entry<String, JsonValue> e : ((JsonObject) value).entrySet()) {
                    if (!first) {
                        out.append(',');
                    }
                    first = false;
                    quote(out, e.getKey()).append(':');
                    write(out, e.getValue());
                }
                out.append('}');
            }
            case ARRAY -> {
                out.append('[');
                List<JsonValue> items = value.asJsonArray();
                for (int i = 0; i < items.size(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    write(out, items.get(i));
                }
                out.append(']');
            }
            case STRING -> quote(out, ((JsonString) value).getString());
            case NUMBER -> number(out, (JsonNumber) value);
            case TRUE -> out.append("true");
            case FALSE -> out.append("false");
            case NULL -> out.append("null");
        }
        return out;
    }

    /** Appends the string as a JSON string: quotes, backslash and control characters escaped, the rest as is. */
    public static StringBuilder quote(StringBuilder out, String s) {
        out.append('"');
        int plainFrom = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\') {
                continue;
            }
            out.append(s, plainFrom, i);
            plainFrom = i + 1;
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
            }
        }
        return out.append(s, plainFrom, s.length()).append('"');
    }

    private static void number(StringBuilder out, JsonNumber n) {
        if (n.isIntegral()) {
            try {
                out.append(n.longValueExact()); // no BigDecimal text for the ids, seqs and times frames carry
                return;
            } catch (ArithmeticException beyondLong) {
                // falls through to the exact decimal text
            }
        }
        out.append(n.toString());
    }
}
