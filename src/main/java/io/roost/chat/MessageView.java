package io.roost.chat;

import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.time.OffsetDateTime;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * A message as REST and {@code chatOp} answers show it: ids as strings (JS-safe); a deleted or
 * recalled message keeps its seq and has no content.
 */
@Schema(name = "ChatMessage", description = "A message in its owner's timeline; a deleted or recalled one has no content")
public record MessageView(String msgId, long seq, String peer, @Schema(description = "0: the system") String senderUid,
                          String sendId, String type, String text, Media media, Location location, String quote, int priority,
                          OffsetDateTime createdAt, boolean deleted, boolean recalled) {

    @Schema(name = "ChatMedia", description = "A media reference (no bytes): image, file, voice")
    public record Media(@Schema(required = true) String url, @Schema(required = true) Long size, @Schema(required = true) String mime,
                        Integer width, Integer height, @Schema(description = "milliseconds") Long duration, String name) {
    }

    @Schema(name = "ChatLocation")
    public record Location(@Schema(required = true) Double lat, @Schema(required = true) Double lon, String title) {
    }

    public static MessageView of(ChatMessage m) {
        JsonObject b = m.body();
        return new MessageView(Long.toString(m.msgId()), m.seq(), Long.toString(m.peer()), Long.toString(m.senderUid()), m.sendId(),
                m.type(), b == null ? null : b.getString("text", null), b == null ? null : mediaOf(b.get("media")),
                b == null ? null : locationOf(b.get("location")),
                m.quoteMsgId() == null ? null : Long.toString(m.quoteMsgId()), m.priority(), m.createdAt(), m.deleted(), m.recalled());
    }

    // a stored body has its type's shape (ChatRules.checkBody); a field of another shape shows as absent, never as a failed read
    private static Media mediaOf(JsonValue v) {
        if (!(v instanceof JsonObject m)) {
            return null;
        }
        return new Media(m.getString("url", null), longOf(m, "size"), m.getString("mime", null),
                intOf(m, "width"), intOf(m, "height"),
                longOf(m, "duration"), m.getString("name", null));
    }

    private static Location locationOf(JsonValue v) {
        if (!(v instanceof JsonObject l) || !(l.get("lat") instanceof JsonNumber lat) || !(l.get("lon") instanceof JsonNumber lon)) {
            return null;
        }
        return new Location(lat.doubleValue(), lon.doubleValue(), l.getString("title", null));
    }

    private static Integer intOf(JsonObject o, String name) {
        return o.get(name) instanceof JsonNumber n ? n.intValue() : null;
    }

    private static Long longOf(JsonObject o, String name) {
        return o.get(name) instanceof JsonNumber n ? n.longValue() : null;
    }
}
