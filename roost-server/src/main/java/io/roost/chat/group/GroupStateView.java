package io.roost.chat.group;

import io.roost.chat.store.GroupChatStore;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** A member's state in a group's conversation, as REST and {@code chatOp} answer it. */
@Schema(name = "GroupChatState", description = "A member's cursor and unread state in a group")
public record GroupStateView(String group, @Schema(description = "the last seq the member may see") long lastSeq,
                             @Schema(description = "it sees the messages after this seq (its join)") long joinedSeq,
                             @Schema(description = "it left at this seq (absent: a member)") Long leftSeq, long readSeq, int unread,
                             boolean mentioned, boolean muted) {

    public static GroupStateView of(GroupMemberState m, GroupChatStore.Head head) {
        return new GroupStateView(Long.toString(m.groupId()), m.lastVisible(head.lastSeq()), m.joinedSeq(), m.leftSeq(), m.readSeq(),
                m.unread(head.lastSeq()), m.mentioned(head.mentionAllSeq()), m.muted());
    }
}
