package io.roost.chat;

import java.time.OffsetDateTime;

/** One side of a conversation: its last message, unread count, cursors and the owner's sync version of its last change. */
public record Conversation(long owner, long peer, long lastSeq, Long lastMsgId, Long lastSenderUid, String lastPreview,
                           int unread, long readSeq, long deliveredSeq, long syncVersion, OffsetDateTime updatedAt) {
}
