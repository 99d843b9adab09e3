package io.roost.gateway;

import io.roost.platform.json.Jsonp;
import jakarta.json.JsonObjectBuilder;

/**
 * The JSON envelope of seed 001: {@code {"v":1,"type":...,...,"tm":millis}}. Later issues add
 * chat frame types to the same envelope; unknown types are answered with an error frame.
 */
public final class Frames {

    public static final int VERSION = 1;
    public static final String SERVER_VERSION = "0.1.0";

    private Frames() {
    }

    public static JsonObjectBuilder frame(String type) {
        return Jsonp.PROVIDER.createObjectBuilder().add("v", VERSION).add("type", type).add("tm", System.currentTimeMillis());
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
    public static String outcome(JsonObjectBuilder ret, io.roost.platform.problem.ProblemException failure) {
        return (failure == null ? ret.add("result", "ok")
                : ret.add("result", "fail").add("code", failure.type()).add("message", failure.getMessage())).build().toString();
    }

    public static String error(String code, String message) {
        return frame("error").add("code", code).add("message", message).build().toString();
    }

    public static String kick(String reason) {
        return frame("kick").add("reason", reason).build().toString();
    }
}
