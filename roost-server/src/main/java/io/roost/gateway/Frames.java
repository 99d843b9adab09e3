package io.roost.gateway;

import io.roost.platform.json.JsonText;
import io.roost.platform.json.Jsonp;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.problem.Unreachable;
import jakarta.json.JsonObjectBuilder;
import java.util.concurrent.CompletionException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The frame envelope (docs/protocol.md): {@code {"v":1,"type":...,...,"tm":millis}}. Later issues add
 * chat frame types to the same envelope; unknown types are answered with an error frame.
 */
public final class Frames {

    public static final int VERSION = 1;
    public static final String SERVER_VERSION = "0.1.0";
    private static final Logger LOG = Logger.getLogger(Frames.class.getName());

    private Frames() {
    }

    public static JsonObjectBuilder frame(String type) {
        return Jsonp.PROVIDER.createObjectBuilder().add("v", VERSION).add("type", type).add("tm", System.currentTimeMillis());
    }

    /** A whole frame of {@code type} with these fields, as text. */
    public static String frame(String type, jakarta.json.JsonObject fields) {
        if (fields.containsKey("v") || fields.containsKey("type") || fields.containsKey("tm")) {
            JsonObjectBuilder frame = frame(type); // the fields' values replace the envelope's, in place
            fields.forEach(frame::add);
            return text(frame);
        }
        // written straight out: a frame per push and per receipt, under chat load
        return JsonText.text(out -> {
            JsonText.quote(out.append("{\"v\":").append(VERSION).append(",\"type\":"), type).append(",\"tm\":")
                    .append(System.currentTimeMillis());
            fields.forEach((key, value) -> JsonText.write(JsonText.quote(out.append(','), key).append(':'), value));
            out.append('}');
        });
    }

    /**
     * Why an op failed, as its answer's code: its problem (the cause of a failed stage's), {@code server-busy}
     * if the database is out of reach, else {@code internal-error} (logged as a failed {@code frameType}).
     * {@code retry} tells the device how to try again.
     */
    static ProblemException failure(Throwable failure, String frameType, String retry) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        if (cause instanceof ProblemException p) {
            return p;
        }
        if (Unreachable.isCause(cause)) {
            return new ProblemException(503, "server-busy", "Service Unavailable",
                    "Not done: the server cannot reach its database; " + retry + ".");
        }
        LOG.log(Level.WARNING, "a " + frameType + " failed", cause);
        return new ProblemException(500, "internal-error", "Internal Server Error", "Not done; " + retry + ".");
    }

    /** A built frame as text. */
    public static String text(JsonObjectBuilder frame) {
        return JsonText.of(frame.build());
    }

    /** The answer to an operation frame: {@code <type>Ret} with the request's {@code op} and the client's {@code seq}. */
    public static JsonObjectBuilder reply(jakarta.json.JsonObject request) {
        JsonObjectBuilder ret = frame(request.getString("type") + "Ret").add("op", request.getString("op", ""));
        if (request.containsKey("seq")) {
            ret.add("seq", request.get("seq"));
        }
        return ret;
    }

    /** Ends an operation answer: ok, or fail with the problem type as {@code code}. */
    public static String outcome(JsonObjectBuilder ret, ProblemException failure) {
        return text(failure == null ? ret.add("result", "ok")
                : ret.add("result", "fail").add("code", failure.type()).add("message", failure.getMessage()));
    }

    /** A read operation's {@code limit} field: 1 to {@code max}, {@code def} if absent (400 {@code invalid-limit}). */
    public static int limit(jakarta.json.JsonObject frame, int def, int max) {
        jakarta.json.JsonValue v = frame.get("limit");
        Integer limit = v == null ? Integer.valueOf(def) : smallInt(v);
        if (limit == null) {
            throw ProblemException.badRequest("invalid-limit", "limit is a whole number, 1 to " + max + ".");
        }
        return io.roost.platform.api.Page.checkLimit(limit, max);
    }

    /**
     * A whole JSON number that fits an int, or null for anything else: a frame's number is taken
     * as it is or refused, never truncated or wrapped into range (2.9 is not 2, 2^32 + 3 is not 3).
     */
    public static Integer smallInt(jakarta.json.JsonValue v) {
        Long whole = wholeLong(v);
        return whole != null && whole == whole.intValue() ? whole.intValue() : null;
    }

    /** A whole JSON number that fits a long, or null for anything else (as {@link #smallInt}). */
    public static Long wholeLong(jakarta.json.JsonValue v) {
        return v instanceof jakarta.json.JsonNumber n && n.isIntegral() && n.bigIntegerValue().bitLength() < 64 ? n.longValue() : null;
    }

    /** An optional id field (a cursor such as {@code after}); null if absent, 400 {@code invalid-id} if not an id (a string). */
    public static Long optionalId(jakarta.json.JsonObject frame, String field) {
        jakarta.json.JsonValue v = frame.get(field);
        if (v == null || v.getValueType() == jakarta.json.JsonValue.ValueType.NULL) {
            return null;
        }
        if (!(v instanceof jakarta.json.JsonString s)) {
            throw ProblemException.badRequest("invalid-id", field + " is an id, as a string.");
        }
        return io.roost.platform.ids.Ids.parse(s.getString());
    }

    /** Adds a page as the REST API returns it: {@code items} (the same views) and {@code next}. */
    public static JsonObjectBuilder page(JsonObjectBuilder ret, io.roost.platform.api.Page<?> page) {
        ret.add("items", toJson(page.items()));
        return page.next() == null ? ret.addNull("next") : ret.add("next", page.next());
    }

    /** A view record in the JSON the REST API would give it (the one Jsonb of {@code JsonbResolver}). */
    public static jakarta.json.JsonValue toJson(Object view) {
        try (jakarta.json.JsonReader r = Jsonp.PROVIDER.createReader(new java.io.StringReader(
                io.roost.platform.api.JsonbResolver.jsonb().toJson(view)))) {
            return r.readValue();
        }
    }

    public static String error(String code, String message) {
        return text(frame("error").add("code", code).add("message", message));
    }

    public static String kick(String reason) {
        return text(frame("kick").add("reason", reason));
    }
}
