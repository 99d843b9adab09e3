package io.roost.client.device;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * A message to send: to a conversation, of {@code msgType} with its {@code body}
 * ({@code {"text"}}, {@code {"media":{"id"}}}, {@code {"location"}}). {@code sendId} null: the
 * device makes one (unique per device, kept for every re-send of this message).
 */
public record Outgoing(Conversation conversation, String msgType, ObjectNode body, String sendId, String quote,
                       Integer priority, List<String> mentions, boolean mentionAll) {

    public static Outgoing of(Conversation conversation, String msgType, ObjectNode body) {
        return new Outgoing(conversation, msgType, body, null, null, null, List.of(), false);
    }

    public static Outgoing text(Conversation conversation, String text) {
        return of(conversation, "text", Frames.MAPPER.createObjectNode().put("text", text));
    }

    /** A message naming stored file {@code mediaId} ({@code msgType} image, voice, video or file). */
    public static Outgoing media(Conversation conversation, String msgType, String mediaId) {
        ObjectNode body = Frames.MAPPER.createObjectNode();
        body.putObject("media").put("id", mediaId);
        return of(conversation, msgType, body);
    }

    public Outgoing withSendId(String id) {
        return new Outgoing(conversation, msgType, body, id, quote, priority, mentions, mentionAll);
    }

    public Outgoing withQuote(String msgId) {
        return new Outgoing(conversation, msgType, body, sendId, msgId, priority, mentions, mentionAll);
    }

    public Outgoing withPriority(int level) {
        return new Outgoing(conversation, msgType, body, sendId, quote, level, mentions, mentionAll);
    }

    /** Group messages: members it mentions, and whether it mentions everyone (owner and admins only). */
    public Outgoing withMentions(List<String> uids, boolean all) {
        return new Outgoing(conversation, msgType, body, sendId, quote, priority, List.copyOf(uids), all);
    }
}
