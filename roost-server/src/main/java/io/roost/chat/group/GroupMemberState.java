package io.roost.chat.group;

/**
 * A member's own state in a group's conversation: it sees the messages after {@code joinedSeq} up
 * to {@code leftSeq} (null: still a member), read up to {@code readSeq}, was last mentioned by name
 * at {@code mentionSeq}, and {@code muted} the group (no pushes but mentions).
 */
public record GroupMemberState(long groupId, long uid, long joinedSeq, Long leftSeq, long readSeq, long mentionSeq, boolean muted) {

    /** Whether the member may see message {@code seq}: after its join, not after its leave. */
    public boolean sees(long seq) {
        return seq > joinedSeq && (leftSeq == null || seq <= leftSeq);
    }

    /** The last seq the member may see of a group whose last seq is {@code lastSeq}. */
    public long lastVisible(long lastSeq) {
        return leftSeq == null ? lastSeq : Math.min(lastSeq, leftSeq);
    }

    /** Messages after its read cursor that it may see. */
    public int unread(long lastSeq) {
        return (int) Math.max(0, lastVisible(lastSeq) - Math.max(readSeq, joinedSeq));
    }

    /** Whether an unread message mentions it: by name, or everyone ({@code mentionAllSeq}: the group's last such message). */
    public boolean mentioned(long mentionAllSeq) {
        long after = Math.max(readSeq, joinedSeq);
        return (mentionSeq > after && sees(mentionSeq)) || (mentionAllSeq > after && sees(mentionAllSeq));
    }

    /** Whether it is a member now. */
    public boolean current() {
        return leftSeq == null;
    }
}
