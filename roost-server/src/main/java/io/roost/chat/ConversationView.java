package io.roost.chat;

import io.roost.chat.group.GroupMemberState;
import io.roost.chat.store.GroupChatStore;
import java.time.OffsetDateTime;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * An entry of a user's one conversation list, as REST and {@code chatOp} answers show it: a
 * one-to-one conversation ({@code kind: user}, the other side in {@code peer}) or a group
 * ({@code kind: group}, {@code group}); ids as strings (JS-safe); a field that does not apply to
 * the kind is absent.
 */
@Schema(name = "ChatConversation", description = "An entry of the conversation list; syncVersion orders its owner's changes")
public record ConversationView(@Schema(enumeration = {"user", "group"}, required = true) String kind,
                               @Schema(description = "the other user (kind user)") String peer,
                               @Schema(description = "the group (kind group)") String group,
                               @Schema(description = "the last seq the owner may see") long lastSeq, String lastMsgId,
                               String lastSenderUid, String lastPreview, int unread, long readSeq,
                               @Schema(description = "how far the owner's devices acknowledged (kind user)") Long deliveredSeq,
                               @Schema(description = "how far the peer read; it does not move while the peer has read receipts off (kind user)")
                               Long peerReadSeq,
                               @Schema(description = "how far the peer's devices acknowledged (kind user)") Long peerDeliveredSeq,
                               @Schema(description = "an unread message mentions the owner, by name or everyone (kind group)") Boolean mentioned,
                               @Schema(description = "the owner muted the group: no pushes but mentions (kind group)") Boolean muted,
                               @Schema(description = "the owner is a member no more: it sees the messages up to its leave (kind group)") Boolean left,
                               long syncVersion, OffsetDateTime updatedAt) {

    public static final String USER = "user";
    public static final String GROUP = "group";

    public static ConversationView of(Conversation c) {
        return new ConversationView(USER, Long.toString(c.peer()), null, c.lastSeq(), c.lastMsgId() == null ? null : Long.toString(c.lastMsgId()),
                c.lastSenderUid() == null ? null : Long.toString(c.lastSenderUid()), c.lastPreview(), c.unread(), c.readSeq(),
                c.deliveredSeq(), c.peerReadSeq(), c.peerDeliveredSeq(), null, null, null, c.syncVersion(), c.updatedAt());
    }

    /** A member's group entry: what it may see of the group's head. */
    public static ConversationView of(GroupChatStore.Entry e) {
        GroupChatStore.Head h = e.head();
        GroupMemberState m = e.member();
        boolean after = !m.current() && h.lastSeq() > m.leftSeq(); // the head moved on after the member left: not its to see
        return new ConversationView(GROUP, null, Long.toString(h.groupId()), m.lastVisible(h.lastSeq()),
                after || h.lastMsgId() == null ? null : Long.toString(h.lastMsgId()),
                after || h.lastSenderUid() == null ? null : Long.toString(h.lastSenderUid()), after ? null : h.lastPreview(),
                m.unread(h.lastSeq()), m.readSeq(), null, null, null, m.mentioned(h.mentionAllSeq()), m.muted(), !m.current(),
                e.syncVersion(), e.updatedAt());
    }
}
