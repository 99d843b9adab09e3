package io.roost.chat.group;

import io.roost.group.GroupService.Role;
import io.roost.platform.problem.ProblemException;

/** The pure rules of who may send to a group and mention everyone. */
public final class GroupRules {

    private GroupRules() {
    }

    /**
     * Whether a member with {@code role} (null: not a member now) may send to a group of
     * {@code groupType}: in a chat group W and above, in a channel only the owner and admins;
     * never while an admin's mute lasts. 403 with the reason's code otherwise.
     */
    public static void checkSender(String groupType, Role role, boolean muted, long groupId) {
        if (role == null) {
            throw new ProblemException(403, "not-member", "Forbidden", "You are not a member of group " + groupId + ".");
        }
        Role least = groupType.equals("channel") ? Role.A : Role.W;
        if (role.ordinal() > least.ordinal()) {
            throw new ProblemException(403, "role-cannot-send", "Forbidden", groupType.equals("channel")
                    ? "In a channel only the owner and admins send." : "Your role in group " + groupId + " only reads.");
        }
        if (muted) {
            throw new ProblemException(403, "muted", "Forbidden", "An admin muted you in group " + groupId + ".");
        }
    }

    /** Only the owner and admins mention everyone. */
    public static boolean mayMentionAll(Role role) {
        return role == Role.O || role == Role.A;
    }

    /** Whether a member with {@code role} may recall or delete anyone's message at any age. */
    public static boolean moderates(Role role) {
        return role == Role.O || role == Role.A;
    }
}
