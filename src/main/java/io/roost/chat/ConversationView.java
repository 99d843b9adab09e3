package io.roost.chat;

import java.time.OffsetDateTime;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** One side of a conversation as REST and {@code chatOp} answers show it: ids as strings (JS-safe). */
@Schema(name = "ChatConversation", description = "One side of a conversation; syncVersion orders its owner's changes")
public record ConversationView(String peer, long lastSeq, String lastMsgId, String lastSenderUid, String lastPreview, int unread,
                               long readSeq, long deliveredSeq,
                               @Schema(description = "how far the peer read; it does not move while the peer has read receipts off") long peerReadSeq,
                               @Schema(description = "how far the peer's devices acknowledged") long peerDeliveredSeq,
                               long syncVersion, OffsetDateTime updatedAt) {

    public static ConversationView of(Conversation c) {
        return new ConversationView(Long.toString(c.peer()), c.lastSeq(), c.lastMsgId() == null ? null : Long.toString(c.lastMsgId()),
                c.lastSenderUid() == null ? null : Long.toString(c.lastSenderUid()), c.lastPreview(), c.unread(), c.readSeq(),
                c.deliveredSeq(), c.peerReadSeq(), c.peerDeliveredSeq(), c.syncVersion(), c.updatedAt());
    }
}
