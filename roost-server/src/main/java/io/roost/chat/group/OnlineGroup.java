package io.roost.chat.group;

/** A group a user logging in is a member of: its state there, and the group's last seq when it was read. */
public record OnlineGroup(GroupMemberState member, long lastSeq) {
}
