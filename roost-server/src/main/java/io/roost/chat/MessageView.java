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

    @Schema(name = "ChatMedia", description = "A file in a message (image, file, voice, video). To send one, name a stored file by "
            + "id (and optionally the name to show); the server fills in the rest. Or, where allowed, an external url with size and mime.")
    public record Media(@Schema(description = "a stored file (POST /api/v1/media)") String id,
                        @Schema(description = "where its bytes are: /api/v1/media/{id}/content for a stored file") String url,
                        Long size, String mime, Integer width, Integer height, @Schema(description = "milliseconds") Long duration,
                        String name, @Schema(description = "an image's thumbnail path (stored files)") String thumbnail,
                        @Schema(description = "true: an external URL the server neither holds nor checks") Boolean external,
                        @Schema(description = "true: the stored file was removed (by an operator, or as unused); no url") Boolean removed) {
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
        return new Media(m.getString("id", null), m.getString("url", null), longOf(m, "size"), m.getString("mime", null),
                intOf(m, "width"), intOf(m, "height"), longOf(m, "duration"), m.getString("name", null), m.getString("thumbnail", null),
                m.get("external") == JsonValue.TRUE ? Boolean.TRUE : null, m.get("removed") == JsonValue.TRUE ? Boolean.TRUE : null);
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
