package io.roost.presence.mqtt;

import io.roost.platform.json.Jsonp;
import jakarta.json.JsonException;
import jakarta.json.stream.JsonParser;
import java.io.StringReader;
import java.math.BigDecimal;
import java.util.Locale;
import java.util.NoSuchElementException;

/**
 * One MQTT client status notification: {@code {"clientId":"GID_XXX@@@device-1","time":1212121212,
 * "eventType":"connect","channelId":"2b9b...","clientIp":"192.168.0.1:13300"}}. The group id is
 * the part of clientId before {@code @@@} (the device-id convention of MQTT client ids).
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
        // One pass over the parser's events, no object tree: the last value of each known field
        // (as a JSON object keeps the last of duplicate keys), anything else skipped, and nothing
        // read after the object (as JsonReader.readObject did).
        Object[] fields = new Object[FIELDS.length];
        try (JsonParser p = Jsonp.PROVIDER.createParser(new StringReader(body))) {
            if (!p.hasNext() || p.next() != JsonParser.Event.START_OBJECT) {
                throw new Invalid("body is not a JSON object");
            }
            for (JsonParser.Event ev = p.next(); ev != JsonParser.Event.END_OBJECT; ev = p.next()) {
                int field = field(p.getString());
                Object value = switch (p.next()) {
                    case VALUE_STRING -> p.getString();
                    case VALUE_NUMBER -> p.getBigDecimal();
                    case START_OBJECT -> skip(p::skipObject);
                    case START_ARRAY -> skip(p::skipArray);
                    default -> OTHER;
                };
                if (field >= 0) {
                    fields[field] = value;
                }
            }
        } catch (JsonException | IllegalStateException | NoSuchElementException e) {
            throw new Invalid("body is not a JSON object");
        }
        String clientId = text(fields[CLIENT_ID], "clientId", 128);
        String channelId = text(fields[CHANNEL_ID], "channelId", 64);
        String type = fields[EVENT_TYPE] != null ? text(fields[EVENT_TYPE], "eventType", 16) : tag;
        if (type == null || type.isBlank()) {
            throw new Invalid("eventType is required");
        }
        long time;
        Object t = fields[TIME];
        if (t instanceof BigDecimal n && n.scale() == 0) {
            time = n.longValue();
        } else if (t instanceof String s && s.matches("\\d{1,18}")) {
            time = Long.parseLong(s);
        } else {
            throw new Invalid("time is required and must be an integer");
        }
        String ip = fields[CLIENT_IP] instanceof String s ? truncate(s, 64) : null;
        return new MqttStatusEvent(clientId, groupOf(clientId), channelId, Type.of(type.trim()), time, ip);
    }

    private static final String[] FIELDS = {"clientId", "channelId", "eventType", "time", "clientIp"};
    private static final int CLIENT_ID = 0;
    private static final int CHANNEL_ID = 1;
    private static final int EVENT_TYPE = 2;
    private static final int TIME = 3;
    private static final int CLIENT_IP = 4;
    /** A value that is neither a string nor a number (true, false, null, object, array). */
    private static final Object OTHER = new Object();

    private static int field(String name) {
        for (int i = 0; i < FIELDS.length; i++) {
            if (FIELDS[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    private static Object skip(Runnable skipper) {
        skipper.run();
        return OTHER;
    }

    private static String text(Object v, String name, int max) {
        if (!(v instanceof String s) || s.isBlank()) {
            throw new Invalid(name + " is required");
        }
        if (s.length() > max) {
            throw new Invalid(name + " is longer than " + max + " characters");
        }
        return s;
    }

    private static String truncate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max);
    }
}
