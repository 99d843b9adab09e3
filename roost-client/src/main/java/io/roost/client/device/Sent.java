package io.roost.client.device;

import java.time.Instant;

/**
 * A send's answer: the message is stored in the conversation at {@code seq}. {@code resent}: the
 * server had it already (an earlier attempt with the same sendId got through), nothing stored twice.
 */
public record Sent(Conversation conversation, String sendId, String msgId, long seq, Instant sentAt, boolean resent) {
}
