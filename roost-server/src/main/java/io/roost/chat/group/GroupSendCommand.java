package io.roost.chat.group;

import jakarta.json.JsonObject;
import java.util.List;

/**
 * A message to a group. {@code sender} is the member it comes from, or with {@code system} the back
 * end's user it is sent for (stored with sender 0). {@code mentions}: members the message mentions
 * (empty: none); {@code mentionAll}: everyone (owners and admins only).
 */
public record GroupSendCommand(long sender, long groupId, String deviceKey, String sendId, String type, JsonObject body,
                               Long quoteMsgId, int priority, List<Long> mentions, boolean mentionAll, boolean system) {

    public GroupSendCommand {
        mentions = mentions == null ? List.of() : List.copyOf(mentions);
    }
}
