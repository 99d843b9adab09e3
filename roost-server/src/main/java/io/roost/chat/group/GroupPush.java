package io.roost.chat.group;

import jakarta.json.JsonObject;
import java.util.List;

/**
 * A frame for the live devices of a group's members, fired in the transaction that stored what it
 * tells and observed after commit by the gateway, which fans it out node by node to the members'
 * connections ({@code seq} decides who may see it: those whose visibility covers it).
 *
 * @param frameType     {@code chatMsg} (a message: its devices acknowledge it) or {@code chatRecall}
 * @param memberEpoch   the group's member epoch after this transaction: a node whose view of the
 *                      group's members is older refreshes it before it pushes
 * @param mentions      the members it mentions by name (pushed to them even if they muted the group)
 * @param fromConnection the device connection that sent it, which has its answer (null: none)
 */
public record GroupPush(long groupId, long seq, String frameType, JsonObject fields, long senderUid, List<Long> mentions,
                        boolean mentionAll, long memberEpoch, String fromConnection) {

    public boolean acknowledged() {
        return frameType.equals("chatMsg");
    }

    public boolean mentions(long uid) {
        return mentionAll || mentions.contains(uid);
    }

    /** What one transaction stored, in order. */
    public record Batch(List<GroupPush> pushes) {
    }
}
