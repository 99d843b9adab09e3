package io.roost.chat;

import java.time.OffsetDateTime;

/**
 * The answer to a send, given only after commit: the message's id, its seq in the conversation and
 * its time. {@code resent}: a resend of a stored sendId, answered as the first time, nothing written.
 * {@code peerDeliveredSeq}: the peer's delivered cursor, when the same transaction moved it (the
 * sending device's delivered receipt rides on its answer); 0 when it did not.
 */
public record Sent(String sendId, long msgId, long seq, OffsetDateTime tm, boolean resent, long peerDeliveredSeq) {

    public Sent(String sendId, long msgId, long seq, OffsetDateTime tm, boolean resent) {
        this(sendId, msgId, seq, tm, resent, 0);
    }

    /** This answer carrying the peer's delivered cursor, which its transaction moved. */
    Sent carrying(long peerDelivered) {
        return new Sent(sendId, msgId, seq, tm, resent, peerDelivered);
    }
}
