package io.roost.chat;

import jakarta.json.JsonObject;

/**
 * A stored message to push to the live devices of both participants. A send transaction fires
 * its messages together ({@link Batch}), observed after commit by the gateway, which looks the
 * routes up only then (one query for the batch): a
 * device whose login commits later reads the message in its catch-up instead (write, then look
 * up, then push; log in, then catch up — between the two orders nothing falls through).
 *
 * @param from    the participant who sent it (for a system message, the one it was sent for)
 * @param to      the recipient: the participant whose devices' acknowledgements advance the delivered cursor
 * @param message the {@code chatMsg} frame's fields
 * @param fromConnection the device connection that sent it, which has its answer and gets no push (null: none)
 * @param delivered a delivered cursor of this conversation that the same transaction moved, or null:
 *                  its peer's devices get {@code peerDeliveredSeq} in their frame instead of a receipt of its own
 */
public record ChatPush(long from, long to, long seq, long msgId, JsonObject message, String fromConnection, Cursor delivered) {

    /** This push carrying a delivered cursor of its conversation. */
    ChatPush carrying(Cursor moved) {
        return new ChatPush(from, to, seq, msgId, message, fromConnection, moved);
    }

    /** The messages one send transaction stored, in the order they were written. */
    public record Batch(java.util.List<ChatPush> pushes) {
    }
}
