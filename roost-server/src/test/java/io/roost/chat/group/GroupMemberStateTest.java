package io.roost.chat.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.group.GroupService.Role;
import io.roost.platform.problem.ProblemException;
import org.junit.jupiter.api.Test;

/** The visibility, cursor and send rules of a group member, without a database. */
class GroupMemberStateTest {

    static GroupMemberState member(long joined, Long left, long read, long mention) {
        return new GroupMemberState(1, 2, joined, left, read, mention, false);
    }

    @Test
    void aMemberSeesFromAfterItsJoinUpToItsLeave() {
        GroupMemberState m = member(10, 20L, 10, 0);
        assertFalse(m.sees(10), "the seq before its join message");
        assertTrue(m.sees(11), "its own join message");
        assertTrue(m.sees(20), "the message that removed it");
        assertFalse(m.sees(21), "nothing after its leave");
        assertTrue(member(10, null, 10, 0).sees(1_000_000), "a current member sees everything after its join");
        assertEquals(20, m.lastVisible(500));
        assertEquals(15, member(10, null, 10, 0).lastVisible(15));
    }

    @Test
    void unreadCountsWhatItMaySeeAfterTheLargerOfItsCursorAndItsJoin() {
        assertEquals(5, member(10, null, 0, 0).unread(15), "a cursor below the join counts from the join");
        assertEquals(2, member(10, null, 13, 0).unread(15));
        assertEquals(0, member(10, null, 15, 0).unread(15));
        assertEquals(3, member(10, 18L, 15, 0).unread(40), "nothing after its leave is unread");
        assertEquals(0, member(10, 18L, 18, 0).unread(40));
    }

    @Test
    void aMentionShowsUntilReadAndOnlyIfTheMemberMaySeeIt() {
        assertTrue(member(10, null, 11, 12).mentioned(0), "mentioned by name after its cursor");
        assertFalse(member(10, null, 12, 12).mentioned(0), "read past it");
        assertTrue(member(10, null, 11, 0).mentioned(14), "everyone mentioned after its cursor");
        assertFalse(member(10, null, 11, 0).mentioned(9), "an @all from before its join");
        assertFalse(member(10, 15L, 11, 0).mentioned(16), "an @all after its leave");
    }

    @Test
    void whoMaySendByRoleAndGroupType() {
        GroupRules.checkSender("chat", Role.W, false, 1);
        GroupRules.checkSender("channel", Role.A, false, 1);
        assertEquals("role-cannot-send", code(() -> GroupRules.checkSender("chat", Role.R, false, 1)));
        assertEquals("role-cannot-send", code(() -> GroupRules.checkSender("channel", Role.W, false, 1)));
        assertEquals("not-member", code(() -> GroupRules.checkSender("chat", null, false, 1)));
        assertEquals("muted", code(() -> GroupRules.checkSender("chat", Role.O, true, 1)), "even the owner, while muted");
        assertTrue(GroupRules.mayMentionAll(Role.A));
        assertFalse(GroupRules.mayMentionAll(Role.W));
    }

    private static String code(Runnable r) {
        return assertThrows(ProblemException.class, r::run).type().replaceAll(".*:", "");
    }
}
