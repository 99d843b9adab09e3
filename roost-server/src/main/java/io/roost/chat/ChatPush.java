package io.roost.chat;

import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

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
 * @param delivered the delivered cursors of this conversation that the same transaction moved, at
 *                  most one per participant: the devices of the user each one tells ({@link Cursor#peer})
 *                  get {@code peerDeliveredSeq} in their frame instead of a receipt of its own
 */
public record ChatPush(long from, long to, long seq, long msgId, JsonObject message, String fromConnection, List<Cursor> delivered) {

    /** This push carrying one more delivered cursor of its conversation (the other participant's, if it carries one). */
    ChatPush carrying(Cursor moved) {
        List<Cursor> all = new ArrayList<>(delivered);
        all.add(moved);
        return new ChatPush(from, to, seq, msgId, message, fromConnection, List.copyOf(all));
    }

    /** The seq of the delivered receipt this push carries for {@code user}'s devices, or 0 if none. */
    public long peerDeliveredFor(long user) {
        for (Cursor c : delivered) {
            if (c.peer() == user) {
                return c.seq();
            }
        }
        return 0;
    }

    /** The messages one send transaction stored, in the order they were written. */
    public record Batch(List<ChatPush> pushes) {
    }
}
