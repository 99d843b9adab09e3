package io.roost.presence.mqtt;

import io.roost.platform.json.Jsonp;
import jakarta.json.JsonException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.util.Locale;

/**
 * One MQTT client status notification: {@code {"clientId":"GID_XXX@@@device-1","time":1212121212,
 * "eventType":"connect","channelId":"2b9b...","clientIp":"192.168.0.1:13300"}}. The group id is
 * the part of clientId before {@code @@@} (the seed's convention).
 */
public record MqttStatusEvent(String clientId, String groupId, String channelId, Type type, long time,
                              String clientIp) {

    public enum Type {
        CONNECT, DISCONNECT, TCPCLEAN;

        private final String wire = name().toLowerCase(Locale.ROOT);

        public String wire() {
            return wire;
        }

        static Type of(String value) {
            return switch (value) {
                case "connect" -> CONNECT;
                case "disconnect" -> DISCONNECT;
                case "tcpclean" -> TCPCLEAN;
                default -> throw new Invalid("unknown eventType '" + value + "'");
            };
        }
    }

    /** Why a notification can never be applied. */
    public static class Invalid extends RuntimeException {
        public Invalid(String reason) {
            super(reason);
        }
    }

    public static final String GROUP_SEPARATOR = "@@@";
    public static final String NO_GROUP = "-";

    public static String groupOf(String clientId) {
        int at = clientId.indexOf(GROUP_SEPARATOR);
        return at > 0 ? clientId.substring(0, at) : NO_GROUP;
    }

    /** Parses the JSON body; {@code tag} (connect|disconnect|tcpclean) stands in for a missing eventType. */
    public static MqttStatusEvent parse(String body, String tag) {
        JsonObject o;
        try (JsonReader reader = Jsonp.PROVIDER.createReader(new StringReader(body))) {
            o = reader.readObject();
        } catch (JsonException | IllegalStateException e) {
            throw new Invalid("body is not a JSON object");
        }
        String clientId = text(o, "clientId", 128);
        String channelId = text(o, "channelId", 64);
        String type = o.containsKey("eventType") ? text(o, "eventType", 16) : tag;
        if (type == null || type.isBlank()) {
            throw new Invalid("eventType is required");
        }
        long time;
        JsonValue t = o.get("time");
        if (t instanceof JsonNumber n && n.isIntegral()) {
            time = n.longValue();
        } else if (t instanceof JsonString s && s.getString().matches("\\d{1,18}")) {
            time = Long.parseLong(s.getString());
        } else {
            throw new Invalid("time is required and must be an integer");
        }
        String ip = o.get("clientIp") instanceof JsonString s ? truncate(s.getString(), 64) : null;
        return new MqttStatusEvent(clientId, groupOf(clientId), channelId, Type.of(type.trim()), time, ip);
    }

    private static String text(JsonObject o, String name, int max) {
        JsonValue v = o.get(name);
        if (!(v instanceof JsonString s) || s.getString().isBlank()) {
            throw new Invalid(name + " is required");
        }
        if (s.getString().length() > max) {
            throw new Invalid(name + " is longer than " + max + " characters");
        }
        return s.getString();
    }

    private static String truncate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }
}
