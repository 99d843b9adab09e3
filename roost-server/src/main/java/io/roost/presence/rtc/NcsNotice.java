package io.roost.presence.rtc;

import io.roost.platform.json.Jsonp;
import io.roost.platform.problem.ProblemException;
import jakarta.json.JsonException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.ByteArrayInputStream;

/**
 * One NCS notification, flattened: {@code {"noticeId","productId","eventType","notifyMs","sid",
 * "payload":{channelName, uid, clientSeq, ts, platform, clientType, reason, account, ...}}}.
 * Member events require channelName, uid, clientSeq and ts; channel events channelName and ts.
 */
public record NcsNotice(String noticeId, int eventType, long notifyMs, String channelName, long uid,
                        long clientSeq, long ts, Integer platform, Integer clientType, Integer reason,
                        String account) {

    public static final int MAX_CHANNEL_NAME = 128;

    public boolean isMemberEvent() {
        return NcsEventType.isMemberEvent(eventType);
    }

    public boolean isChannelEvent() {
        return NcsEventType.isChannelEvent(eventType);
    }

    /** Parses and validates; a bad notice is a 400 {@code invalid-notice} naming what is wrong. */
    public static NcsNotice parse(byte[] body) {
        JsonObject root;
        try (JsonReader reader = Jsonp.PROVIDER.createReader(new ByteArrayInputStream(body))) {
            root = reader.readObject();
        } catch (JsonException | IllegalStateException | ClassCastException e) {
            throw new ProblemException(400, "malformed-json", "Malformed request body",
                    "The body is not a JSON object.");
        }
        String noticeId = string(root, "noticeId", true);
        if (noticeId.length() > 128) {
            throw invalid("noticeId is longer than 128 characters");
        }
        int eventType = (int) number(root, "eventType", true);
        long notifyMs = root.containsKey("notifyMs") ? number(root, "notifyMs", false) : 0;
        JsonValue payloadValue = root.get("payload");
        if (!(payloadValue instanceof JsonObject payload)) {
            throw invalid("payload must be an object");
        }
        if (!NcsEventType.isKnown(eventType)) {
            // Unknown types are acknowledged, not applied: keep only what identifies them.
            return new NcsNotice(noticeId, eventType, notifyMs, null, 0, 0, 0, null, null, null, null);
        }
        String channelName = string(payload, "channelName", true);
        if (channelName.isEmpty() || channelName.length() > MAX_CHANNEL_NAME) {
            throw invalid("payload.channelName must have 1 to " + MAX_CHANNEL_NAME + " characters");
        }
        long ts = number(payload, "ts", true);
        if (NcsEventType.isChannelEvent(eventType)) {
            return new NcsNotice(noticeId, eventType, notifyMs, channelName, 0, 0, ts, null, null, null, null);
        }
        long uid = number(payload, "uid", true);
        long clientSeq = number(payload, "clientSeq", true);
        if (uid < 0 || clientSeq < 0) {
            throw invalid("payload.uid and payload.clientSeq must not be negative");
        }
        String account = payload.containsKey("account") ? string(payload, "account", false) : null;
        if (account != null && account.length() > 255) {
            account = account.substring(0, 255);
        }
        return new NcsNotice(noticeId, eventType, notifyMs, channelName, uid, clientSeq, ts,
                optionalInt(payload, "platform"), optionalInt(payload, "clientType"), optionalInt(payload, "reason"),
                account);
    }

    private static ProblemException invalid(String detail) {
        return ProblemException.badRequest("invalid-notice", detail);
    }

    private static String string(JsonObject o, String name, boolean required) {
        JsonValue v = o.get(name);
        if (v instanceof JsonString s) {
            return s.getString();
        }
        if (v == null || v == JsonValue.NULL) {
            if (required) {
                throw invalid(name + " is required");
            }
            return null;
        }
        if (v instanceof JsonNumber n) {
            return n.toString();
        }
        throw invalid(name + " must be a string");
    }

    /** Integral number; NCS sends numbers, but a numeric string is accepted too. */
    private static long number(JsonObject o, String name, boolean required) {
        JsonValue v = o.get(name);
        try {
            if (v instanceof JsonNumber n) {
                return n.longValueExact();
            }
            if (v instanceof JsonString s) {
                return Long.parseLong(s.getString().trim());
            }
        } catch (ArithmeticException | NumberFormatException e) {
            throw invalid(name + " must be an integer");
        }
        if (v == null || v == JsonValue.NULL) {
            if (required) {
                throw invalid(name + " is required");
            }
            return 0;
        }
        throw invalid(name + " must be an integer");
    }

    private static Integer optionalInt(JsonObject o, String name) {
        if (!o.containsKey(name) || o.isNull(name)) {
            return null;
        }
        long v = number(o, name, false);
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
    }
}
