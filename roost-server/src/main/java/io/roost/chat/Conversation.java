package io.roost.chat;

import java.time.OffsetDateTime;

/**
 * One side of a conversation: its last message, unread count, cursors and the owner's sync version
 * of its last change. {@code readSeq} / {@code deliveredSeq}: how far the owner read and the
 * owner's devices hold; {@code peerReadSeq} / {@code peerDeliveredSeq}: the same of the peer (the
 * owner's receipts; the peer's read cursor stays 0 while the peer has read receipts off).
 */
public record Conversation(long owner, long peer, long lastSeq, Long lastMsgId, Long lastSenderUid, String lastPreview,
                           int unread, long readSeq, long deliveredSeq, long peerReadSeq, long peerDeliveredSeq, long syncVersion,
                           OffsetDateTime updatedAt) {
}
