package io.roost.chat;

import io.roost.platform.json.JsonText;
import io.roost.platform.problem.ProblemException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Set;
import java.util.regex.Pattern;

/** The pure rules of a message: sendId, type, body shape and size, preview, the hash a resend is compared by. */
public final class ChatRules {

    public static final Set<String> TYPES = Set.of("text", "image", "file", "voice", "location", "custom", "system");
    private static final Set<String> MEDIA_TYPES = Set.of("image", "file", "voice");
    private static final Pattern SEND_ID = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");
    static final int PREVIEW_CHARS = 100;

    private ChatRules() {
    }

    /** 400 {@code invalid-send-id} unless 1–64 characters of [A-Za-z0-9_.:-]. */
    public static String checkSendId(String sendId) {
        if (sendId == null || !SEND_ID.matcher(sendId).matches()) {
            throw ProblemException.badRequest("invalid-send-id", "sendId is 1 to 64 characters of A-Z a-z 0-9 _ . : -");
        }
        return sendId;
    }

    /** 400 {@code invalid-type} unless one of {@link #TYPES}. */
    public static String checkType(String type) {
        if (type == null || !TYPES.contains(type)) {
            throw ProblemException.badRequest("invalid-type", "type is one of text, image, file, voice, location, custom, system.");
        }
        return type;
    }

    /** 400 {@code invalid-priority} unless 0–9. */
    public static int checkPriority(int priority) {
        if (priority < 0 || priority > 9) {
            throw ProblemException.badRequest("invalid-priority", "priority is 0 to 9.");
        }
        return priority;
    }

    /**
     * The body fits its type: text, custom and system carry a non-empty {@code text}; image, file and
     * voice a {@code media} reference (http(s) {@code url}, {@code size}, {@code mime}; optional
     * {@code width}, {@code height}, {@code duration}, {@code name}); location a {@code location}
     * ({@code lat}, {@code lon}, optional {@code title}). 400 {@code invalid-body} otherwise, 413
     * {@code body-too-large} over {@code maxBytes} (its JSON, UTF-8).
     */
    public static void checkBody(String type, JsonObject body, int maxBytes) {
        if (body == null) {
            throw invalidBody("A body is required.");
        }
        if (MEDIA_TYPES.contains(type)) {
            JsonObject media = object(body, "media");
            String url = string(media, "url");
            if (url == null || !(url.startsWith("https://") || url.startsWith("http://")) || url.length() > 2048) {
                throw invalidBody("media.url is an http(s) URL of at most 2048 characters.");
            }
            if (string(media, "mime") == null || number(media, "size") == null || number(media, "size").longValue() < 0) {
                throw invalidBody("media needs mime and a size ≥ 0.");
            }
            for (String dim : new String[] {"width", "height", "duration"}) {
                if (media.containsKey(dim) && (number(media, dim) == null || number(media, dim).longValue() < 0)) {
                    throw invalidBody("media." + dim + " is a number ≥ 0.");
                }
            }
        } else if (type.equals("location")) {
            JsonObject location = object(body, "location");
            JsonNumber lat = number(location, "lat");
            JsonNumber lon = number(location, "lon");
            if (lat == null || lon == null || Math.abs(lat.doubleValue()) > 90 || Math.abs(lon.doubleValue()) > 180) {
                throw invalidBody("location needs lat (-90..90) and lon (-180..180).");
            }
        } else {
            String text = string(body, "text");
            if (text == null || text.isEmpty()) {
                throw invalidBody("A " + type + " message needs a non-empty text.");
            }
        }
        if (bytes(body) > maxBytes) {
            throw new ProblemException(413, "body-too-large", "Content too large",
                    "The message body is over " + maxBytes + " bytes.");
        }
    }

    public static int bytes(JsonObject body) {
        return JsonText.of(body).getBytes(StandardCharsets.UTF_8).length;
    }

    /** What a conversation list shows of a message: the start of its text, or its kind. */
    public static String preview(String type, JsonObject body) {
        String text = body == null ? null : string(body, "text");
        if (text != null) {
            return text.length() <= PREVIEW_CHARS ? text : text.substring(0, PREVIEW_CHARS - 1) + "…";
        }
        return "[" + type + "]";
    }

    /** The hash a resend is compared by: everything the sender chose (peer, type, body, quote, priority). */
    public static byte[] hash(SendCommand c) {
        // the body's text is its toString(), as when the stored hashes were taken
        String canonical = c.peer() + "\n" + c.type() + "\n" + c.system() + "\n" + (c.body() == null ? null : JsonText.of(c.body()))
                + "\n" + c.quoteMsgId() + "\n" + c.priority();
        try {
            return MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ProblemException invalidBody(String detail) {
        return ProblemException.badRequest("invalid-body", detail);
    }

    private static JsonObject object(JsonObject o, String name) {
        JsonValue v = o.get(name);
        if (!(v instanceof JsonObject j)) {
            throw invalidBody("The body needs an object '" + name + "'.");
        }
        return j;
    }

    private static String string(JsonObject o, String name) {
        return o.get(name) instanceof JsonString s ? s.getString() : null;
    }

    private static JsonNumber number(JsonObject o, String name) {
        return o.get(name) instanceof JsonNumber n ? n : null;
    }
}
