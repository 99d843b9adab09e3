package io.roost.client.device;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * A chat message as the device's listener gets it, whether it came pushed ({@code chatMsg}) or
 * in a catch-up (a history item): the same fields either way. {@code body} holds its type's
 * content as a push carries it ({@code {"text"}}, {@code {"media"}}, {@code {"location"}}, a
 * group's system message {@code {"event"}}); a recalled or deleted message has none.
 */
public record Message(Conversation conversation, long seq, String msgId, String senderUid, String sendId, String msgType,
                      ObjectNode body, int priority, String quote, List<String> mentions, boolean mentionAll,
                      Instant sentAt, boolean recalled, boolean deleted) {

    /** The text of a text, custom or system message; null for other types. */
    public String text() {
        JsonNode text = body == null ? null : body.get("text");
        return text == null || text.isNull() ? null : text.asText();
    }

    /** A {@code chatMsg} pushed to a device whose user is {@code me}. */
    static Message pushed(ObjectNode frame, String me) {
        Conversation c;
        if (frame.hasNonNull("group")) {
            c = Conversation.group(frame.get("group").asText());
        } else {
            String from = text(frame, "from");
            c = Conversation.user(me != null && me.equals(from) ? text(frame, "to") : from);
        }
        JsonNode body = frame.get("body");
        return new Message(c, frame.path("seq").asLong(), text(frame, "msgId"), text(frame, "senderUid"), text(frame, "sendId"),
                text(frame, "msgType"), body instanceof ObjectNode o ? o : null, frame.path("priority").asInt(0), text(frame, "quote"),
                strings(frame.get("mentions")), frame.path("mentionAll").asBoolean(false),
                frame.has("sentAt") ? Instant.ofEpochMilli(frame.get("sentAt").asLong()) : null,
                frame.path("recalled").asBoolean(false), false);
    }

    /** A history item ({@code ChatMessage} or {@code GroupChatMessage}) of conversation {@code c}. */
    static Message item(Conversation c, ObjectNode item) {
        ObjectNode body = Frames.MAPPER.createObjectNode();
        for (String field : List.of("text", "media", "location", "event")) {
            if (item.hasNonNull(field)) {
                body.set(field, item.get(field));
            }
        }
        return new Message(c, item.path("seq").asLong(), text(item, "msgId"), text(item, "senderUid"), text(item, "sendId"),
                text(item, "type"), body.isEmpty() ? null : body, item.path("priority").asInt(0), text(item, "quote"),
                strings(item.get("mentions")), item.path("mentionAll").asBoolean(false),
                item.hasNonNull("createdAt") ? OffsetDateTime.parse(item.get("createdAt").asText()).toInstant() : null,
                item.path("recalled").asBoolean(false), item.path("deleted").asBoolean(false));
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    private static List<String> strings(JsonNode array) {
        if (array == null || !array.isArray()) {
            return List.of();
        }
        List<String> out = new ArrayList<>(array.size());
        array.forEach(v -> out.add(v.asText()));
        return List.copyOf(out);
    }
}
