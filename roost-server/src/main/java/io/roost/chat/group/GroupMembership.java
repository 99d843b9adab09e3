package io.roost.chat.group;

/**
 * A user's membership in a group changed: joined (it sees messages after {@code joinedSeq}), left
 * (up to {@code leftSeq}: quit or kicked), or it muted or unmuted the group. Observed after commit
 * by the gateway, which updates the online index of every node that holds a device of the user.
 */
public record GroupMembership(long groupId, long uid, Change change, long joinedSeq, Long leftSeq, boolean muted) {

    public enum Change { JOINED, LEFT, MUTED }
}
