package io.roost.chat.group;

import io.roost.chat.MessageView;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import java.time.OffsetDateTime;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * A group message as REST and {@code chatOp} answers show it, in the shape of a one-to-one
 * history item ({@link MessageView}) with the group instead of the peer; a system message about
 * the group carries its {@code event}; a recalled or deleted one keeps its seq and has no content.
 */
@Schema(name = "GroupChatMessage", description = "A group message; a recalled or deleted one has no content")
public record GroupMessageView(String group, String msgId, long seq, @Schema(description = "0: the system") String senderUid,
                               String sendId, String type, String text, MessageView.Media media, MessageView.Location location,
                               @Schema(description = "what a system message about the group says happened") Event event,
                               String quote, int priority, List<String> mentions, Boolean mentionAll, OffsetDateTime createdAt,
                               boolean recalled, boolean deleted) {

    @Schema(name = "GroupChatEvent", description = "A group change told in the group's sequence")
    public record Event(@Schema(description = "created, joined, quit, kicked, admin_added, admin_removed, owner_transferred,"
            + " info_changed, muted, unmuted, dissolved") String type, String actor, String target, String detail) {
    }

    public static GroupMessageView of(GroupMessage m) {
        JsonObject b = m.body();
        MessageView shape = MessageView.of(new io.roost.chat.ChatMessage(m.groupId(), m.groupId(), m.seq(), m.msgId(), m.senderUid(),
                m.sendId(), m.type(), b, m.quoteMsgId(), m.priority(), m.createdAt(), m.deleted(), m.recalled()));
        Event event = b != null && b.get("event") instanceof JsonObject e ? new Event(e.getString("type", null), string(e, "actor"),
                string(e, "target"), string(e, "detail")) : null;
        return new GroupMessageView(Long.toString(m.groupId()), shape.msgId(), m.seq(), shape.senderUid(), m.sendId(), m.type(),
                shape.text(), shape.media(), shape.location(), event, shape.quote(), m.priority(),
                m.mentions().isEmpty() ? null : m.mentions().stream().map(String::valueOf).toList(), m.mentionAll() ? Boolean.TRUE : null,
                m.createdAt(), m.recalled(), m.deleted());
    }

    private static String string(JsonObject o, String name) {
        return o.get(name) instanceof JsonString s ? s.getString() : null;
    }
}
