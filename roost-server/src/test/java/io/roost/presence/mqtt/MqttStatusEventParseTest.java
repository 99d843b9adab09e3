package io.roost.presence.mqtt;

import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.json.Json;
import jakarta.json.JsonException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The streaming parser decides every body as the object-tree reading it replaced did. */
class MqttStatusEventParseTest {

    @Test
    void streamingParseMatchesTheTreeReading() {
        String ok = "\"clientId\":\"GID_A@@@d1\",\"channelId\":\"c1\"";
        List<String> bodies = List.of(
                "{" + ok + ",\"time\":5,\"eventType\":\"connect\",\"clientIp\":\"1.2.3.4:5\"}",
                "{" + ok + ",\"time\":\"17\"}",
                "{" + ok + ",\"time\":1e3}", "{" + ok + ",\"time\":1E0}", "{" + ok + ",\"time\":1.0}",
                "{" + ok + ",\"time\":-3}", "{" + ok + ",\"time\":\"1234567890123456789\"}", "{" + ok + ",\"time\":null}",
                "{" + ok + ",\"time\":true}", "{" + ok + ",\"time\":[1]}", "{" + ok + ",\"time\":{\"v\":1}}",
                "{" + ok + ",\"time\":5,\"eventType\":null}", "{" + ok + ",\"time\":5,\"eventType\":\" \"}",
                "{" + ok + ",\"time\":5,\"eventType\":\" tcpclean \"}", "{" + ok + ",\"time\":5,\"eventType\":\"Connect\"}",
                "{" + ok + ",\"time\":5,\"eventType\":\"disconnect\",\"eventType\":\"connect\"}",
                "{" + ok + ",\"time\":5,\"clientId\":\"other\"}", "{" + ok + ",\"time\":5,\"clientIp\":7}",
                "{" + ok + ",\"time\":5,\"extra\":{\"clientId\":\"nested\",\"a\":[1,{\"b\":2}]},\"more\":[[],{}]}",
                "{" + ok + ",\"time\":5,\"clientIp\":\"" + "9".repeat(80) + "\"}",
                "{\"clientId\":\"" + "x".repeat(129) + "\",\"channelId\":\"c\",\"time\":1}",
                "{\"clientId\":\"a\\u0041\\\"b\",\"channelId\":\"c\",\"time\":1}",
                "{\"clientId\":\"x\",\"time\":1}", "{\"clientId\":\"\",\"channelId\":\"c\",\"time\":1}",
                "{}", "[]", "[{" + ok + ",\"time\":1}]", "\"text\"", "42", "null", "", "   ", "not json", "{oops",
                "{" + ok + ",\"time\":5", "{" + ok + ",\"time\":5}}", "{" + ok + ",\"time\":5} {}", "{" + ok + ",\"time\":5} x");
        for (String body : bodies) {
            for (String tag : new String[] {null, "connect", "tcpclean", "bogus"}) {
                assertEquals(outcome(() -> tree(body, tag)), outcome(() -> MqttStatusEvent.parse(body, tag)),
                        body + " / tag " + tag);
            }
        }
    }

    private static String outcome(java.util.function.Supplier<MqttStatusEvent> parse) {
        try {
            return parse.get().toString();
        } catch (MqttStatusEvent.Invalid e) {
            return "invalid: " + e.getMessage();
        }
    }

    /** The reading before the streaming parser (JSON object tree). */
    private static MqttStatusEvent tree(String body, String tag) {
        JsonObject o;
        try (JsonReader reader = Json.createReader(new StringReader(body))) {
            o = reader.readObject();
        } catch (JsonException | IllegalStateException e) {
            throw new MqttStatusEvent.Invalid("body is not a JSON object");
        }
        String clientId = text(o, "clientId", 128);
        String channelId = text(o, "channelId", 64);
        String type = o.containsKey("eventType") ? text(o, "eventType", 16) : tag;
        if (type == null || type.isBlank()) {
            throw new MqttStatusEvent.Invalid("eventType is required");
        }
        long time;
        JsonValue t = o.get("time");
        if (t instanceof JsonNumber n && n.isIntegral()) {
            time = n.longValue();
        } else if (t instanceof JsonString s && s.getString().matches("\\d{1,18}")) {
            time = Long.parseLong(s.getString());
        } else {
            throw new MqttStatusEvent.Invalid("time is required and must be an integer");
        }
        String ip = o.get("clientIp") instanceof JsonString s ? (s.getString().length() <= 64 ? s.getString()
                : s.getString().substring(0, 64)) : null;
        return new MqttStatusEvent(clientId, MqttStatusEvent.groupOf(clientId), channelId,
                MqttStatusEvent.Type.valueOf(switch (type.trim()) {
                    case "connect", "disconnect", "tcpclean" -> type.trim().toUpperCase(java.util.Locale.ROOT);
                    default -> throw new MqttStatusEvent.Invalid("unknown eventType '" + type.trim() + "'");
                }), time, ip);
    }

    private static String text(JsonObject o, String name, int max) {
        JsonValue v = o.get(name);
        if (!(v instanceof JsonString s) || s.getString().isBlank()) {
            throw new MqttStatusEvent.Invalid(name + " is required");
        }
        if (s.getString().length() > max) {
            throw new MqttStatusEvent.Invalid(name + " is longer than " + max + " characters");
        }
        return s.getString();
    }
}
