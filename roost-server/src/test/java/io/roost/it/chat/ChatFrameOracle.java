package io.roost.it.chat;

import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which {@code chatOp} and {@code chatAck} frames of one device user to one peer docs/protocol.md
 * makes certainly invalid: a required field missing (or null, which is missing or of the wrong
 * type either way), a field of another JSON type, a value outside what the protocol allows, a
 * peer or message that cannot exist. Whatever the protocol leaves open (an optional field null,
 * a number beyond 64 bits where no limit is written, a decimal string where a number is asked
 * for, a latitude of 91) is not judged: such a frame may be valid or not.
 */
final class ChatFrameOracle {

    static final Set<String> OPS = Set.of("send", "conversations", "messages", "sync", "delete", "recall", "read");
    /** The types a device may send (a {@code system} message is refused as {@code forbidden}). */
    static final Set<String> DEVICE_TYPES = Set.of("text", "image", "file", "voice", "location", "custom");
    static final Set<String> MEDIA_FIELDS = Set.of("url", "size", "mime", "width", "height", "duration", "name");
    static final Set<String> LOCATION_FIELDS = Set.of("lat", "lon", "title");
    static final Pattern SEND_ID = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");
    static final Pattern DIGITS = Pattern.compile("[0-9]+");
    /** ROOST_CHAT_MAX_BODY_BYTES, the default the suite keeps. */
    static final int MAX_BODY = 16_384;
    static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    private final String self;
    private final String peer;
    private final Collection<String> sentMsgIds;

    /**
     * @param sentMsgIds the msgIds of the self's messages to the peer so far, which a quote may
     *                   name (whether one was deleted or recalled since, the oracle does not judge)
     */
    ChatFrameOracle(String self, String peer, Collection<String> sentMsgIds) {
        this.self = self;
        this.peer = peer;
        this.sentMsgIds = sentMsgIds;
    }

    /** Why this {@code chatOp} must be refused, or null if it may be valid. */
    String refusal(JsonObject f) {
        if (!(f.get("op") instanceof JsonString op) || !OPS.contains(op.getString())) {
            return "no such op";
        }
        return switch (op.getString()) {
            case "send" -> first(peer(f), sendId(f), typeAndBody(f), quote(f), priority(f));
            case "conversations" -> first(cursor(f, "since"), limit(f));
            case "messages" -> first(peer(f), cursor(f, "after"), cursor(f, "before"), oneCursor(f), limit(f));
            case "sync" -> first(peer(f), cursor(f, "after"), limit(f));
            case "delete", "recall" -> first(peer(f), msgSeq(f));
            default -> first(peer(f), readSeq(f)); // read: not-found when there is no such conversation, as every op on it
        };
    }

    /** Why this {@code chatAck} must get error {@code invalid-ack}, or null if it may not. */
    String ackRefusal(JsonObject f) {
        if (!(f.get("peer") instanceof JsonString p) || !DIGITS.matcher(p.getString()).matches()) {
            return "peer is not an id string";
        }
        BigInteger seq = whole(f.get("seq"));
        return seq == null || seq.signum() < 1 || seq.compareTo(LONG_MAX) > 0 ? "seq is not a whole number of 1 or more in 64 bits" : null;
    }

    /** Whether this {@code chatAck} is certainly valid (no error may answer it). */
    boolean ackValid(JsonObject f) {
        return ackRefusal(f) == null && new BigInteger(f.getString("peer")).compareTo(LONG_MAX) <= 0;
    }

    /**
     * The peer: an id string, and this conversation's peer, or the op fails (a send to nobody or
     * to oneself; a read of pages, a sync, a read report, a delete or recall in a conversation
     * that does not exist).
     */
    private String peer(JsonObject f) {
        if (!(f.get("peer") instanceof JsonString p) || !DIGITS.matcher(p.getString()).matches()) {
            return "peer is not an id string";
        }
        if (p.getString().equals(peer)) {
            return null;
        }
        // every account id is a snowflake taken as the account was created: another number is nobody the user talks to
        return p.getString().equals(self) ? "a message to oneself" : "no conversation with " + p.getString();
    }

    private static String sendId(JsonObject f) {
        return f.get("sendId") instanceof JsonString s && SEND_ID.matcher(s.getString()).matches() ? null : "not a sendId";
    }

    private static String typeAndBody(JsonObject f) {
        if (!(f.get("msgType") instanceof JsonString t) || !DEVICE_TYPES.contains(t.getString())) {
            return "not a msgType a device sends";
        }
        if (!(f.get("body") instanceof JsonObject body)) {
            return "body is not an object";
        }
        return switch (t.getString()) {
            case "text", "custom" -> textBody(body);
            case "location" -> body.keySet().equals(Set.of("location")) && body.get("location") instanceof JsonObject l
                    ? location(l) : "not a location body";
            default -> body.keySet().equals(Set.of("media")) && body.get("media") instanceof JsonObject m ? media(m) : "not a media body";
        };
    }

    private static String textBody(JsonObject body) {
        if (!body.keySet().equals(Set.of("text")) || !(body.get("text") instanceof JsonString s)) {
            return "not a text body";
        }
        if (s.getString().indexOf('\0') >= 0) {
            return "NUL in the text";
        }
        return s.getString().length() > MAX_BODY ? "text over the body limit" : null; // empty text: the protocol does not say
    }

    private static String media(JsonObject m) {
        if (!MEDIA_FIELDS.containsAll(m.keySet()) || !m.keySet().containsAll(Set.of("url", "size", "mime"))) {
            return "media fields";
        }
        if (!(m.get("url") instanceof JsonString url) || !(url.getString().startsWith("https://") || url.getString().startsWith("http://"))) {
            return "media url not http(s)";
        }
        for (String n : Set.of("size", "width", "height", "duration")) {
            BigInteger w = m.containsKey(n) ? whole(m.get(n)) : BigInteger.ZERO;
            if (w == null || w.signum() < 0) {
                return "media " + n + " not a whole number >= 0";
            }
        }
        return first(shortString(m, "mime"), shortString(m, "name"));
    }

    private static String location(JsonObject l) {
        if (!LOCATION_FIELDS.containsAll(l.keySet()) || !(l.get("lat") instanceof JsonNumber) || !(l.get("lon") instanceof JsonNumber)) {
            return "location fields"; // their range the protocol does not give
        }
        return shortString(l, "title");
    }

    /** An optional (or, for mime, present) string field of at most 255 characters. */
    private static String shortString(JsonObject o, String name) {
        JsonValue v = o.get(name);
        return v == null || v instanceof JsonString s && s.getString().length() <= 255 ? null : name + " not a string of at most 255";
    }

    private String quote(JsonObject f) {
        JsonValue v = f.get("quote");
        if (v == null || v == JsonValue.NULL) {
            return null;
        }
        if (!(v instanceof JsonString s) || !DIGITS.matcher(s.getString()).matches()) {
            return "quote is not an id string";
        }
        return sentMsgIds.contains(s.getString()) ? null : "quote names no message of this conversation";
    }

    private static String priority(JsonObject f) {
        JsonValue v = f.get("priority");
        if (v == null || v == JsonValue.NULL) {
            return null;
        }
        BigInteger p = whole(v);
        return p != null && p.signum() >= 0 && p.compareTo(BigInteger.valueOf(9)) <= 0 ? null : "priority not a whole number 0-9";
    }

    /** An optional seq or version ({@code since}, {@code after}, {@code before}): an integer >= 0, as a number or a decimal string. */
    private static String cursor(JsonObject f, String name) {
        JsonValue v = f.get(name);
        if (v == null || v == JsonValue.NULL) {
            return null;
        }
        if (v instanceof JsonString s) {
            return DIGITS.matcher(s.getString()).matches() ? null : name + " not a decimal string";
        }
        BigInteger n = whole(v);
        return n != null && n.signum() >= 0 ? null : name + " not an integer >= 0";
    }

    private static String oneCursor(JsonObject f) {
        return present(f, "after") && present(f, "before") ? "both after and before" : null;
    }

    private static String msgSeq(JsonObject f) {
        if (!present(f, "msgSeq")) {
            return "no msgSeq";
        }
        String cursor = cursor(f, "msgSeq");
        if (cursor != null) {
            return cursor;
        }
        JsonValue v = f.get("msgSeq");
        boolean zero = v instanceof JsonString s ? new BigInteger(s.getString()).signum() == 0 : whole(v).signum() == 0;
        return zero ? "no message has seq 0" : null;
    }

    private static String readSeq(JsonObject f) {
        JsonValue v = f.get("readSeq");
        if (v == null || v == JsonValue.NULL) {
            return "no readSeq";
        }
        if (v instanceof JsonString s) {
            return DIGITS.matcher(s.getString()).matches() ? null : "readSeq not a number"; // a decimal string: not said either way
        }
        BigInteger n = whole(v);
        return n != null && n.signum() >= 0 ? null : "readSeq not a whole number >= 0";
    }

    /** {@code limit}, optional: a whole number 1-100 (a decimal string the protocol does not say either way). */
    private static String limit(JsonObject f) {
        JsonValue v = f.get("limit");
        if (v == null || v == JsonValue.NULL || v instanceof JsonString s && DIGITS.matcher(s.getString()).matches()) {
            return null;
        }
        BigInteger n = whole(v);
        return n != null && n.signum() > 0 && n.compareTo(BigInteger.valueOf(100)) <= 0 ? null : "limit not a whole number 1-100";
    }

    private static boolean present(JsonObject f, String name) {
        return f.containsKey(name) && f.get(name) != JsonValue.NULL;
    }

    /** The value as a whole number (1e3 is one, 1.5 is not), or null if it is not a number or not whole. */
    private static BigInteger whole(JsonValue v) {
        if (!(v instanceof JsonNumber n)) {
            return null;
        }
        BigDecimal d = n.bigDecimalValue();
        return d.signum() == 0 ? BigInteger.ZERO : d.stripTrailingZeros().scale() <= 0 ? d.toBigIntegerExact() : null;
    }

    private static String first(String... reasons) {
        for (String r : reasons) {
            if (r != null) {
                return r;
            }
        }
        return null;
    }
}
