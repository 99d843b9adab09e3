package io.roost.client.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The resume and dedupe rule against a SyncStore: every seq once, in order, whatever the pushes and catch-ups. */
class InboxTest {

    private static final Conversation PEER = Conversation.user("42");
    private static final Conversation GROUP = Conversation.group("7");

    private static Message m(Conversation c, long seq) {
        return new Message(c, seq, "m" + seq, "42", "s" + seq, "text", null, 0, null, List.of(), false, null, false, false);
    }

    private static List<Long> seqs(Inbox.Release r) {
        return r.messages().stream().map(Message::seq).toList();
    }

    @Test
    void pushesInOrderAreReleasedAtOnceAndAPushAgainIsDropped() {
        Inbox inbox = new Inbox(SyncStore.inMemory());
        assertEquals(List.of(1L), seqs(inbox.pushed(m(PEER, 1))));
        assertEquals(List.of(2L), seqs(inbox.pushed(m(PEER, 2))));
        Inbox.Release again = inbox.pushed(m(PEER, 2));
        assertTrue(again.isEmpty());
        assertEquals(2, again.upTo());
        assertFalse(inbox.gap(PEER));
    }

    @Test
    void aPushPastAGapWaitsUntilTheGapIsFilled() {
        Inbox inbox = new Inbox(SyncStore.inMemory());
        inbox.pushed(m(PEER, 1));
        assertEquals(List.of(), seqs(inbox.pushed(m(PEER, 4))));
        assertEquals(List.of(), seqs(inbox.pushed(m(PEER, 3))));
        assertTrue(inbox.gap(PEER));
        assertEquals(List.of(2L, 3L, 4L), seqs(inbox.pushed(m(PEER, 2))));
        assertEquals(4, inbox.released(PEER));
        assertFalse(inbox.gap(PEER));
    }

    @Test
    void theDevicesOwnSendCountsAsHeldWithoutBeingDelivered() {
        Inbox inbox = new Inbox(SyncStore.inMemory());
        inbox.pushed(m(PEER, 1));
        assertEquals(List.of(), seqs(inbox.pushed(m(PEER, 3))), "2 is missing so far");
        Inbox.Release own = inbox.sent(PEER, 2);
        assertEquals(List.of(3L), seqs(own), "the own send fills the gap and is not itself delivered");
        assertEquals(3, own.upTo());
    }

    @Test
    void aCatchUpResumesFromTheStoresSeqAndSkipsWhatWasPushedMeanwhile() {
        SyncStore store = SyncStore.inMemory();
        store.held(PEER, 10);
        Inbox inbox = new Inbox(store);
        // pushes start the moment the login is answered, before the catch-up's answer
        assertEquals(List.of(), seqs(inbox.pushed(m(PEER, 14))));
        List<Message> page = new ArrayList<>();
        for (long s = 9; s <= 14; s++) {
            page.add(m(PEER, s));
        }
        assertEquals(List.of(11L, 12L, 13L, 14L), seqs(inbox.caughtUp(PEER, page)), "9 and 10 were held already, 14 once");
        assertEquals(List.of(15L), seqs(inbox.pushed(m(PEER, 15))));
    }

    @Test
    void aJumpInACatchUpPageIsTakenAsTheServerHasIt() {
        Inbox inbox = new Inbox(SyncStore.inMemory());
        // a member who joined a group at seq 57 sees it from 58 on
        assertEquals(List.of(), seqs(inbox.pushed(m(GROUP, 59))));
        assertTrue(inbox.gap(GROUP));
        assertEquals(List.of(58L, 59L), seqs(inbox.caughtUp(GROUP, List.of(m(GROUP, 58)))));
        assertFalse(inbox.gap(GROUP));
    }

    @Test
    void conversationsAreIndependent() {
        Inbox inbox = new Inbox(SyncStore.inMemory());
        inbox.pushed(m(PEER, 1));
        assertEquals(List.of(1L), seqs(inbox.pushed(m(GROUP, 1))));
        assertEquals(1, inbox.released(PEER));
        assertEquals(0, inbox.released(Conversation.user("43")));
    }

    /**
     * A randomized reconnect storm: pushes duplicated, reordered and lost, own sends among them,
     * catch-ups of random pages at random moments; every seq comes out once and in order.
     */
    @Test
    void pushesAgainReorderedAndLostWithCatchUpsReleaseEverySeqOnceInOrder() {
        long seed = Long.getLong("inbox.seed", System.nanoTime());
        System.out.println("InboxTest seed: -Dinbox.seed=" + seed);
        Random random = new Random(seed);
        for (int round = 0; round < 200; round++) {
            int n = 1 + random.nextInt(60);
            TreeSet<Long> own = new TreeSet<>();
            List<Long> events = new ArrayList<>();
            for (long s = 1; s <= n; s++) {
                if (random.nextInt(6) == 0) {
                    own.add(s);
                }
                int copies = random.nextInt(10) == 0 ? 0 : 1 + (random.nextInt(5) == 0 ? 1 : 0); // lost, once or twice
                for (int i = 0; i < copies; i++) {
                    events.add(s);
                }
            }
            // local reordering: a push may overtake a few others
            for (int i = 0; i < events.size(); i++) {
                int j = Math.min(events.size() - 1, i + random.nextInt(4));
                Collections.swap(events, i, j);
            }
            SyncStore store = SyncStore.inMemory();
            Inbox inbox = new Inbox(store);
            List<Long> delivered = new ArrayList<>();
            for (long s : events) {
                Inbox.Release r = own.contains(s) ? inbox.sent(PEER, s) : inbox.pushed(m(PEER, s));
                r.messages().forEach(x -> delivered.add(x.seq()));
                if (random.nextInt(8) == 0) { // a catch-up of a page after what is released
                    long from = inbox.released(PEER);
                    List<Message> page = new ArrayList<>();
                    for (long t = from + 1; t <= Math.min(n, from + 1 + random.nextInt(10)); t++) {
                        if (!own.contains(t) || random.nextBoolean()) { // history has own messages too
                            page.add(m(PEER, t));
                        }
                    }
                    if (!page.isEmpty() && page.get(0).seq() == from + 1) {
                        inbox.caughtUp(PEER, page).messages().forEach(x -> delivered.add(x.seq()));
                    }
                }
            }
            // the final catch-up after a reconnect: everything after what is held
            List<Message> rest = new ArrayList<>();
            for (long t = inbox.released(PEER) + 1; t <= n; t++) {
                rest.add(m(PEER, t));
            }
            inbox.caughtUp(PEER, rest).messages().forEach(x -> delivered.add(x.seq()));
            assertEquals(n, inbox.released(PEER), "seed " + seed + " round " + round);
            List<Long> sorted = new ArrayList<>(delivered);
            Collections.sort(sorted);
            assertEquals(sorted, delivered, "in order, seed " + seed + " round " + round);
            assertEquals(new TreeSet<>(delivered).size(), delivered.size(), "each once, seed " + seed + " round " + round);
            for (long s = 1; s <= n; s++) {
                assertTrue(delivered.contains(s) || own.contains(s), "seq " + s + " missing, seed " + seed + " round " + round);
            }
        }
    }
}
