package io.roost.group;

/**
 * A change of a group, fired synchronously in the transaction that makes it (with the group row
 * locked), so an observer's writes commit with the change or not at all: group chat tells the
 * group's story in its own sequence from these.
 *
 * @param groupType {@code chat} or {@code channel}
 * @param type      the group event's type: created, joined, quit, kicked, admin_added, admin_removed,
 *                  owner_transferred, info_changed, muted, unmuted, dissolved (and the audit-only ones:
 *                  invited, join_requested)
 * @param target    the member the change is about, if any
 */
public record GroupChanged(long groupId, String groupType, long actor, String type, Long target, String detail) {

    /** Changes after which {@code target} is a member no more. */
    public boolean removesTarget() {
        return type.equals("quit") || type.equals("kicked");
    }
}
