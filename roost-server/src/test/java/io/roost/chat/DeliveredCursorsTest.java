package io.roost.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The hold of delivered cursors: the highest acknowledgement counts, a send takes it, the flush writes what no send took. */
class DeliveredCursorsTest {

    // the concurrency test writes and takes from several threads
    private final List<List<Cursor>> written = java.util.Collections.synchronizedList(new ArrayList<>());
    private final List<Synchronization> synchronizations = java.util.Collections.synchronizedList(new ArrayList<>());
    private DeliveredCursors cursors;

    @BeforeEach
    void setUp() {
        cursors = new DeliveredCursors();
        cursors.receipts = new Receipts() {
            @Override
            public List<Cursor> delivered(List<Cursor> acks) {
                written.add(List.copyOf(acks));
                return acks;
            }
        };
        cursors.registry = (TransactionSynchronizationRegistry) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {TransactionSynchronizationRegistry.class}, (proxy, method, args) -> {
                    if (method.getName().equals("registerInterposedSynchronization")) {
                        synchronizations.add((Synchronization) args[0]);
                        return null;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    /** Everything held now is due. */
    private void flushAll() {
        cursors.flushDue(System.nanoTime(), false);
    }

    @Test
    void theHighestAcknowledgementOfAConversationCountsAndIsWrittenOnce() {
        cursors.record(1, 2, 5);
        cursors.record(1, 2, 3);
        cursors.record(1, 2, 7);
        cursors.record(3, 4, 1);
        flushAll();
        assertEquals(List.of(List.of(new Cursor(1, 2, 7), new Cursor(3, 4, 1))), written);
        flushAll();
        assertEquals(1, written.size(), "nothing is held any more");
    }

    @Test
    void notDueBeforeTheHoldIsOver() {
        long before = System.nanoTime();
        cursors.record(1, 2, 5);
        cursors.flushDue(before - 1, false);
        assertEquals(List.of(), written);
        flushAll();
        assertEquals(List.of(List.of(new Cursor(1, 2, 5))), written);
    }

    @Test
    void aSendTakesTheCursorsOfItsRowsAndTheFlushSkipsThem() {
        cursors.record(1, 2, 5);
        cursors.record(3, 4, 6);
        Map<List<Long>, Long> taken = cursors.takeForTransaction(List.of(List.of(1L, 2L), List.of(2L, 1L)));
        assertEquals(Map.of(List.of(1L, 2L), 5L), taken);
        flushAll();
        assertEquals(List.of(List.of(new Cursor(3, 4, 6))), written);
        synchronizations.forEach(s -> s.afterCompletion(Status.STATUS_COMMITTED));
        flushAll();
        assertEquals(1, written.size(), "a committed send keeps what it took");
    }

    @Test
    void aSendThatRollsBackHoldsItsCursorsAgain() {
        cursors.record(1, 2, 5);
        cursors.takeForTransaction(List.of(List.of(1L, 2L)));
        cursors.record(1, 2, 4); // a later, lower acknowledgement while the send ran
        synchronizations.forEach(s -> s.afterCompletion(Status.STATUS_ROLLEDBACK));
        flushAll();
        assertEquals(List.of(List.of(new Cursor(1, 2, 5))), written);
    }

    @Test
    void aCursorHeldAgainAfterASendTookItWaitsForItsOwnHold() {
        cursors.record(1, 2, 5);
        long firstHold = System.nanoTime();
        cursors.takeForTransaction(List.of(List.of(1L, 2L)));
        cursors.record(1, 2, 6);
        cursors.flushDue(firstHold, false); // the first hold is over, the second is not
        assertEquals(List.of(), written);
        flushAll();
        assertEquals(List.of(List.of(new Cursor(1, 2, 6))), written);
    }
    /** One user acknowledging more conversations than a hold can need (made-up peers, say) does not crowd out anyone else. */
    @Test
    void oneUserHoldsAtMostItsShareAndGetsItBackAsCursorsAreWritten() {
        for (long peer = 1; peer <= DeliveredCursors.PER_OWNER + 1; peer++) {
            cursors.record(1, peer, 1);
        }
        cursors.record(1, 1, 2); // a cursor already held still moves
        cursors.record(2, 1, 1);
        flushAll();
        List<Cursor> flushed = written.stream().flatMap(List::stream).toList(); // in batches of BATCH_MAX
        assertEquals(DeliveredCursors.PER_OWNER + 1, flushed.size(), "user 1's share and user 2's cursor, not user 1's last");
        assertEquals(new Cursor(1, 1, 2), flushed.get(0));
        assertEquals(new Cursor(2, 1, 1), flushed.get(flushed.size() - 1));
        cursors.record(1, DeliveredCursors.PER_OWNER + 1, 1);
        cursors.takeForTransaction(List.of(List.of(1L, (long) DeliveredCursors.PER_OWNER + 1)));
        written.clear();
        for (long peer = 1; peer <= DeliveredCursors.PER_OWNER; peer++) {
            cursors.record(1, peer, 3); // the flush and the send freed the whole share
        }
        flushAll();
        assertEquals(DeliveredCursors.PER_OWNER, written.stream().mapToInt(List::size).sum());
    }
    /**
     * Acknowledgements (two threads), sends taking cursors and the flush (one thread, as the flusher
     * is) at once: every user's share comes back whole once all is written.
     */
    @Test
    void sharesStayExactUnderConcurrentRecordsTakesAndFlushes() throws Exception {
        long seed = System.nanoTime();
        System.out.println("DeliveredCursorsTest seed " + seed);
        int owners = 4;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            List<java.util.concurrent.Future<?>> work = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                java.util.Random random = new java.util.Random(seed + t);
                int role = t;
                work.add(pool.submit(() -> {
                    for (int i = 0; i < 20_000; i++) {
                        long owner = 1 + random.nextInt(owners);
                        long peer = 1 + random.nextInt(1_500);
                        switch (role) {
                            case 0, 1 -> cursors.record(owner, peer, 1 + random.nextInt(100));
                            case 2 -> cursors.takeForTransaction(List.of(List.of(owner, peer)));
                            default -> flushAll();
                        }
                    }
                }));
            }
            for (java.util.concurrent.Future<?> f : work) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        synchronizations.clear(); // the sends "committed": what they took stays taken
        flushAll();
        written.clear();
        for (long owner = 1; owner <= owners; owner++) {
            for (long peer = 1; peer <= DeliveredCursors.PER_OWNER; peer++) {
                cursors.record(owner, peer, 1);
            }
        }
        flushAll();
        assertEquals(owners * DeliveredCursors.PER_OWNER, written.stream().mapToInt(List::size).sum(), "seed " + seed);
    }
}
