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

    public static final Set<String> TYPES = Set.of("text", "image", "file", "voice", "video", "location", "custom", "system");
    private static final Set<String> MEDIA_TYPES = Set.of("image", "file", "voice", "video");
    /** An external file's reference (where ROOST_MEDIA_EXTERNAL_URLS allows one). */
    private static final Set<String> MEDIA_FIELDS = Set.of("url", "size", "mime", "width", "height", "duration", "name");
    /** A stored file: its id and, optionally, the name to show; the server fills in the rest. */
    private static final Set<String> STORED_MEDIA_FIELDS = Set.of("id", "name");
    private static final Set<String> LOCATION_FIELDS = Set.of("lat", "lon", "title");
    /** A media reference's mime and name, a location's title: at most this many characters. */
    static final int SHORT_TEXT_CHARS = 255;
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
            throw ProblemException.badRequest("invalid-type", "type is one of text, image, file, voice, video, location, custom, system.");
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
     * The body fits its type and has nothing else: text, custom and system are {@code {"text"}}, a
     * non-empty string; image, file, voice and video {@code {"media"}}: a stored file ({@code id},
     * optional {@code name}) or an external reference ({@code url} http(s), {@code size} and
     * {@code mime}; optional {@code width}, {@code height}, {@code duration}, {@code name}); location {@code {"location"}} ({@code lat}, {@code lon}, optional
     * {@code title}). Every field has its JSON type and range, so whatever reads a stored body back
     * (history, catch-up, pushes, events) can rely on its shape. 400 {@code invalid-body} otherwise,
     * 413 {@code body-too-large} over {@code maxBytes} (its JSON, UTF-8).
     */
    public static void checkBody(String type, JsonObject body, int maxBytes) {
        if (body == null) {
            throw invalidBody("A body is required.");
        }
        String field = MEDIA_TYPES.contains(type) ? "media" : type.equals("location") ? "location" : "text";
        if (!body.containsKey(field)) {
            throw invalidBody("A " + type + " message needs " + (field.equals("text") ? "a non-empty text." : "a " + field + "."));
        }
        if (body.size() != 1) {
            throw invalidBody("A " + type + " message's body has its " + field + " and nothing else.");
        }
        if (field.equals("media") && object(body, "media").containsKey("id")) {
            JsonObject media = object(body, "media");
            onlyFields(media, "media", STORED_MEDIA_FIELDS);
            String id = string(media, "id");
            if (id == null || !id.matches("[0-9]{1,19}")) {
                throw invalidBody("media.id is a stored file's id (a decimal string).");
            }
            optionalText(media, "media", "name");
        } else if (field.equals("media")) {
            JsonObject media = object(body, "media");
            onlyFields(media, "media", MEDIA_FIELDS);
            String url = string(media, "url");
            if (url == null || !(url.startsWith("https://") || url.startsWith("http://")) || url.length() > 2048) {
                throw invalidBody("media.url is an http(s) URL of at most 2048 characters.");
            }
            String mime = string(media, "mime");
            if (mime == null || mime.isEmpty() || mime.length() > SHORT_TEXT_CHARS) {
                throw invalidBody("media.mime is a string of 1 to " + SHORT_TEXT_CHARS + " characters.");
            }
            if (!media.containsKey("size")) {
                throw invalidBody("media needs a size.");
            }
            count(media, "size", Long.MAX_VALUE);
            count(media, "width", Integer.MAX_VALUE);
            count(media, "height", Integer.MAX_VALUE);
            count(media, "duration", Long.MAX_VALUE);
            optionalText(media, "media", "name");
        } else if (field.equals("location")) {
            JsonObject location = object(body, "location");
            onlyFields(location, "location", LOCATION_FIELDS);
            JsonNumber lat = number(location, "lat");
            JsonNumber lon = number(location, "lon");
            if (lat == null || lon == null || Math.abs(lat.doubleValue()) > 90 || Math.abs(lon.doubleValue()) > 180) {
                throw invalidBody("location needs lat (-90..90) and lon (-180..180).");
            }
            optionalText(location, "location", "title");
        } else {
            String text = string(body, "text");
            if (text == null || text.isEmpty()) {
                throw invalidBody("A " + type + " message needs a non-empty text.");
            }
        }
        noNulCharacter(body);
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
        return sha256(canonical);
    }

    /** The SHA-256 of a send's canonical text (one-to-one and group resends are compared by it). */
    public static byte[] sha256(String canonical) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static ProblemException invalidBody(String detail) {
        return ProblemException.badRequest("invalid-body", detail);
    }

    /** PostgreSQL's text and jsonb cannot hold U+0000: refused here, before it could fail a whole send batch. */
    private static void noNulCharacter(JsonValue v) {
        if (v instanceof JsonString s && s.getString().indexOf('\0') >= 0) {
            throw invalidBody("Text cannot hold the NUL character (U+0000).");
        }
        if (v instanceof JsonObject o) {
            o.values().forEach(ChatRules::noNulCharacter);
        }
    }

    private static void onlyFields(JsonObject o, String name, Set<String> fields) {
        for (String key : o.keySet()) {
            if (!fields.contains(key)) {
                throw invalidBody(name + " has no field '" + key + "'; it has " + String.join(", ", new java.util.TreeSet<>(fields)) + ".");
            }
        }
    }

    /** An optional whole number of the media reference from 0 to {@code max}. */
    private static void count(JsonObject media, String name, long max) {
        JsonNumber n = number(media, name);
        if (media.containsKey(name) && !(n != null && n.isIntegral() && n.bigIntegerValue().signum() >= 0
                && n.bigIntegerValue().compareTo(java.math.BigInteger.valueOf(max)) <= 0)) {
            throw invalidBody("media." + name + " is a whole number from 0 to " + max + ".");
        }
    }

    /** An optional string of at most {@link #SHORT_TEXT_CHARS}. */
    private static void optionalText(JsonObject o, String objectName, String name) {
        String s = string(o, name);
        if (o.containsKey(name) && !(s != null && s.length() <= SHORT_TEXT_CHARS)) {
            throw invalidBody(objectName + "." + name + " is a string of at most " + SHORT_TEXT_CHARS + " characters.");
        }
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
