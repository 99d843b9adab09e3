package io.roost.chat.group;

import jakarta.json.JsonObject;
import java.time.OffsetDateTime;
import java.util.List;

/** A stored group message; a recalled or deleted one keeps its seq and has no content ({@code body} null). */
public record GroupMessage(long groupId, long seq, long msgId, long senderUid, String sendId, String type, JsonObject body,
                           Long quoteMsgId, int priority, List<Long> mentions, boolean mentionAll, OffsetDateTime createdAt,
                           boolean recalled, boolean deleted) {
}
