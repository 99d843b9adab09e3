package io.roost.presence.rtc;

import static io.roost.presence.rtc.NcsEventType.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MemberTransitionsTest {

    static NcsNotice n(int type, long seq) {
        return n(type, seq, 100, null);
    }

    static NcsNotice n(int type, long seq, long ts, Integer reason) {
        return new NcsNotice("n-" + type + "-" + seq, type, 0, "c", 7, seq, ts, null, null, reason, null);
    }

    @ParameterizedTest
    @CsvSource({
            "103, BROADCASTER, true", "104, BROADCASTER, false",
            "105, AUDIENCE, true", "106, AUDIENCE, false",
            "107, COMMUNICATION, true", "108, COMMUNICATION, false",
            "111, BROADCASTER, true", "112, AUDIENCE, true"})
    void everyMemberEventTypeOnAnEmptyPair(int type, RtcRole role, boolean online) {
        MemberTransitions.State s = MemberTransitions.apply(null, n(type, 10), null);
        assertEquals(role, s.role());
        assertEquals(online, s.online());
        assertEquals(10, s.clientSeq());
    }

    @Test
    void aFirstEventThatIsALeaveCreatesATombstoneThatRejectsTheOlderJoin() {
        // A naive last-event-wins rule gets this wrong: a leave seen first must still be remembered.
        MemberTransitions.State s = MemberTransitions.apply(null, n(BROADCASTER_LEAVE, 20), null);
        assertFalse(s.online());
        MemberTransitions.State after = MemberTransitions.apply(s, n(BROADCASTER_JOIN, 19), null);
        assertSame(s, after, "the late join is stale");
        assertFalse(after.online());
    }

    @Test
    void equalOrSmallerClientSeqChangesNothing() {
        MemberTransitions.State s = MemberTransitions.apply(null, n(AUDIENCE_JOIN, 5), null);
        assertSame(s, MemberTransitions.apply(s, n(AUDIENCE_LEAVE, 5), null));
        assertSame(s, MemberTransitions.apply(s, n(AUDIENCE_LEAVE, 4), null));
        MemberTransitions.State left = MemberTransitions.apply(s, n(AUDIENCE_LEAVE, 6), null);
        assertFalse(left.online());
    }

    @Test
    void roleChangesKeepTheUserOnlineWithTheNewRole() {
        MemberTransitions.State s = MemberTransitions.apply(null, n(AUDIENCE_JOIN, 1), null);
        s = MemberTransitions.apply(s, n(ROLE_TO_BROADCASTER, 2), null);
        assertTrue(s.online());
        assertEquals(RtcRole.BROADCASTER, s.role());
        s = MemberTransitions.apply(s, n(ROLE_TO_AUDIENCE, 3), null);
        assertEquals(RtcRole.AUDIENCE, s.role());
    }

    @Test
    void leaveReasonIsKeptOnlyForLeaves() {
        MemberTransitions.State s = MemberTransitions.apply(null, n(BROADCASTER_LEAVE, 3, 100, REASON_ABNORMAL), null);
        assertEquals(REASON_ABNORMAL, s.reason());
        s = MemberTransitions.apply(s, n(BROADCASTER_JOIN, 4, 101, 1), null);
        assertEquals(null, s.reason());
    }

    @Test
    void aJoinOlderThanTheChannelDestroyLandsOffline() {
        MemberTransitions.State s = MemberTransitions.apply(null, n(AUDIENCE_JOIN, 3, 100, null), 150L);
        assertFalse(s.online());
        assertEquals(CHANNEL_DESTROY, s.eventType());
        MemberTransitions.State later = MemberTransitions.apply(s, n(AUDIENCE_JOIN, 4, 200, null), 150L);
        assertTrue(later.online(), "a join after the destroy (channel re-created) counts");
    }

    @Test
    void latestPerMemberKeepsTheHighestSeqAndSortsByKey() {
        NcsNotice a1 = new NcsNotice("1", AUDIENCE_JOIN, 0, "b", 2, 5, 1, null, null, null, null);
        NcsNotice a2 = new NcsNotice("2", AUDIENCE_LEAVE, 0, "b", 2, 9, 1, null, null, null, null);
        NcsNotice a3 = new NcsNotice("3", AUDIENCE_JOIN, 0, "b", 2, 7, 1, null, null, null, null);
        NcsNotice b1 = new NcsNotice("4", AUDIENCE_JOIN, 0, "a", 9, 1, 1, null, null, null, null);
        NcsNotice b2 = new NcsNotice("5", AUDIENCE_JOIN, 0, "b", 1, 1, 1, null, null, null, null);
        assertEquals(List.of(b1, b2, a2), MemberTransitions.latestPerMember(List.of(a1, a2, b2, a3, b1)));
    }
}
