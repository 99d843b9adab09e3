package io.roost.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class PendingAcksTest {

    static final long TIMEOUT = 15;

    @Test
    void onlyTheFirstPendingMessageArmsTheTimer() {
        PendingAcks acks = new PendingAcks("c1", 7);
        assertTrue(acks.add(8, 1, true, 100));
        assertFalse(acks.add(8, 2, true, 101));
        assertFalse(acks.add(9, 1, true, 102));
        assertEquals(3, acks.size());
    }

    @Test
    void anAcknowledgementIsCumulativePerConversation() {
        PendingAcks acks = new PendingAcks("c1", 7);
        acks.add(8, 1, true, 100);
        acks.add(8, 2, true, 100);
        acks.add(8, 4, true, 100);
        acks.add(9, 2, true, 100);
        assertEquals(2, acks.ack(8, 3));
        assertEquals(2, acks.size());
        assertEquals(0, acks.ack(8, 3), "a repeated acknowledgement clears nothing more");
        assertEquals(List.of(new PendingAcks.Undelivered(8, 4, 1), new PendingAcks.Undelivered(9, 2, 1)), acks.drain());
        assertTrue(acks.isEmpty());
    }

    @Test
    void aMissedDeadlinePushesAgainOnceThenGivesTheDeviceUp() {
        PendingAcks acks = new PendingAcks("c1", 7);
        acks.add(8, 1, true, 100);
        acks.add(8, 2, true, 110);

        PendingAcks.Expiry early = acks.expire(99, 2, TIMEOUT);
        assertEquals(List.of(), early.again());
        assertEquals(100, early.nextDeadline());

        PendingAcks.Expiry first = acks.expire(100, 2, TIMEOUT);
        assertFalse(first.giveUp());
        assertEquals(1, first.again().size());
        assertEquals(8, first.again().get(0)[0]);
        assertEquals(1, first.again().get(0)[1]);
        assertEquals(110, first.nextDeadline(), "seq 2's deadline comes before seq 1's new one (115)");

        PendingAcks.Expiry second = acks.expire(110, 2, TIMEOUT);
        assertFalse(second.giveUp());
        assertEquals(2, second.again().get(0)[1]);
        assertEquals(115, second.nextDeadline());

        PendingAcks.Expiry third = acks.expire(115, 2, TIMEOUT);
        assertTrue(third.giveUp(), "seq 1 was pushed twice and is still not acknowledged");
        assertEquals(PendingAcks.NONE, third.nextDeadline());
    }

    @Test
    void acknowledgedMessagesLeaveNothingToExpire() {
        PendingAcks acks = new PendingAcks("c1", 7);
        acks.add(8, 1, true, 100);
        acks.ack(8, 1);
        PendingAcks.Expiry expiry = acks.expire(200, 2, TIMEOUT);
        assertFalse(expiry.giveUp());
        assertEquals(PendingAcks.NONE, expiry.nextDeadline());
        assertTrue(acks.add(8, 2, true, 300), "the timer is disarmed, so the next message arms it again");
    }

    @Test
    void forgettingOneMessageKeepsTheOthers() {
        PendingAcks acks = new PendingAcks("c1", 7);
        acks.add(8, 1, true, 100);
        acks.add(8, 2, true, 100);
        acks.forget(8, 1);
        assertEquals(List.of(new PendingAcks.Undelivered(8, 2, 1)), acks.drain());
    }

    @Test
    void theUsersOwnSendsSyncedToTheDeviceNeedNoOfflinePush() {
        PendingAcks acks = new PendingAcks("c1", 7);
        acks.add(8, 1, true, 100);
        acks.add(8, 2, false, 100); // user 7 sent seq 2 from another device
        acks.add(9, 1, false, 100);
        acks.add(9, 3, true, 100);
        acks.add(9, 4, false, 100);
        assertEquals(List.of(new PendingAcks.Undelivered(8, 1, 1), new PendingAcks.Undelivered(9, 3, 1)), acks.drain(),
                "per conversation the highest seq and the count of what the peer sent");
        assertTrue(acks.isEmpty());
    }

    @Test
    void theIncomingFlagStaysWithItsEntryWhenOthersAreCleared() {
        PendingAcks acks = new PendingAcks("c1", 7);
        acks.add(8, 1, false, 100);
        acks.add(9, 1, true, 100);
        acks.add(9, 2, false, 100);
        acks.ack(8, 1);
        assertEquals(List.of(new PendingAcks.Undelivered(9, 1, 1)), acks.drain());
    }

    @Test
    void growsPastItsFirstArrays() {
        PendingAcks acks = new PendingAcks("c1", 7);
        for (int seq = 1; seq <= 1000; seq++) {
            acks.add(8, seq, true, seq);
        }
        assertEquals(1000, acks.size());
        assertEquals(999, acks.ack(8, 999));
        assertEquals(List.of(new PendingAcks.Undelivered(8, 1000, 1)), acks.drain());
    }

    @Test
    void aPostponedDeadlineDoesNotCountAsAPush() {
        PendingAcks acks = new PendingAcks("c1", 7);
        acks.add(8, 1, true, 100);
        acks.add(8, 2, true, 130);
        assertEquals(115, acks.postpone(100, TIMEOUT), "seq 1 gets its time again, seq 2 keeps its own");
        assertEquals(130, acks.postpone(115, TIMEOUT));
        PendingAcks.Expiry first = acks.expire(130, 2, TIMEOUT);
        assertFalse(first.giveUp(), "postponed twice, seq 1 is still on its first push");
        assertEquals(2, first.again().size());
        assertTrue(acks.expire(145, 2, TIMEOUT).giveUp(), "pushed twice now, and still not acknowledged");
    }

    @Test
    void anAckTellsEachClearedEntrysTimeSinceItsPush() {
        PendingAcks acks = new PendingAcks("c", 7);
        acks.add(8, 1, true, false, 1_000, 9_000);
        acks.add(8, 2, true, false, 1_500, 9_500);
        acks.add(8, 3, true, false, 2_000, 10_000);
        acks.add(9, 1, true, true, 2_000, 10_000);
        List<Long> latencies = new java.util.ArrayList<>();
        assertEquals(2, acks.ack(8, 2, 4_000, latencies::add));
        assertEquals(List.of(3_000L, 2_500L), latencies);
        assertEquals(1, acks.ackGroup(9, 1, 5_000, latencies::add));
        assertEquals(List.of(3_000L, 2_500L, 3_000L), latencies, "the group's entry, not the conversation's seq 3");
    }
}
