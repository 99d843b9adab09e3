package io.roost.chat;

import java.time.OffsetDateTime;

/**
 * The answer to a send, given only after commit: the message's id, its seq in the conversation and
 * its time. {@code resent}: a resend of a stored sendId, answered as the first time, nothing written.
 */
public record Sent(String sendId, long msgId, long seq, OffsetDateTime tm, boolean resent) {
}
