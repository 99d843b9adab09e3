package io.roost.platform.ids;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SnowflakeTest {

    @Test
    void idsAreUniqueAcrossThreads() throws Exception {
        Snowflake snowflake = new Snowflake(7);
        int threads = 8;
        int perThread = 50_000;
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<long[]>> results = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            results.add(pool.submit(() -> {
                start.await();
                long[] mine = new long[perThread];
                for (int i = 0; i < perThread; i++) {
                    mine[i] = snowflake.nextId();
                    seen.add(mine[i]);
                }
                return mine;
            }));
        }
        start.countDown();
        for (Future<long[]> f : results) {
            long[] mine = f.get();
            // Each thread sees its own ids strictly increasing.
            for (int i = 1; i < mine.length; i++) {
                assertTrue(mine[i] > mine[i - 1], "ids of one thread must increase");
            }
        }
        pool.shutdown();
        assertEquals(threads * perThread, seen.size(), "every id must be unique");
    }

    @Test
    void monotonicPerNodeAndCarriesNodeAndTime() {
        long now = 1_800_000_000_000L;
        AtomicLong clock = new AtomicLong(now);
        Snowflake snowflake = new Snowflake(513, clock::get);
        long previous = snowflake.nextId();
        assertEquals(513, Snowflake.nodeId(previous));
        assertEquals(now, Snowflake.timestampMs(previous));
        for (int i = 0; i < 10_000; i++) {
            if (i % 100 == 0) {
                clock.addAndGet(1);
            }
            long id = snowflake.nextId();
            assertTrue(id > previous);
            assertEquals(513, Snowflake.nodeId(id));
            previous = id;
        }
    }

    /** The outbox relay starts its rounds at firstIdAt(now - a few seconds): no id of that millisecond or later, on any node, is below it. */
    @Test
    void firstIdAtBoundsEveryNodesIdsOfThatMillisecondFromBelow() {
        long ms = 1_800_000_000_000L;
        for (int node : new int[] {0, 1, 513, Snowflake.MAX_NODE_ID}) {
            Snowflake snowflake = new Snowflake(node, () -> ms);
            long first = snowflake.nextId();
            assertTrue(first >= Snowflake.firstIdAt(ms), "node " + node);
            assertTrue(first < Snowflake.firstIdAt(ms + 1), "node " + node);
            assertTrue(snowflake.nextId() > first);
        }
        assertEquals(ms, Snowflake.timestampMs(Snowflake.firstIdAt(ms)));
        assertEquals(0, Snowflake.firstIdAt(Snowflake.EPOCH_MS - 1), "before the epoch: from the lowest id");
    }

    @Test
    void sequenceOverflowBorrowsTheNextMillisecond() {
        AtomicLong clock = new AtomicLong(1_800_000_000_000L);
        Snowflake snowflake = new Snowflake(1, clock::get);
        long previous = snowflake.nextId();
        for (int i = 0; i < 3 * 4096; i++) { // three milliseconds' worth while the clock stands still
            long id = snowflake.nextId();
            assertTrue(id > previous);
            previous = id;
        }
        assertEquals(1_800_000_000_003L, Snowflake.timestampMs(previous));
    }

    @Test
    void clockGoingBackwardsNeverRepeatsOrDecreases() {
        AtomicLong clock = new AtomicLong(1_800_000_000_000L);
        Snowflake snowflake = new Snowflake(3, clock::get);
        Set<Long> seen = new java.util.HashSet<>();
        long previous = snowflake.nextId();
        seen.add(previous);
        clock.addAndGet(50);
        long beforeJump = snowflake.nextId();
        seen.add(beforeJump);
        clock.addAndGet(-5_000); // NTP steps the clock back five seconds
        for (int i = 0; i < 20_000; i++) {
            if (i % 1000 == 0) {
                clock.addAndGet(1);
            }
            long id = snowflake.nextId();
            assertTrue(id > beforeJump, "no id after the jump may sort before the ones issued before it");
            assertTrue(seen.add(id), "duplicate id " + id);
            beforeJump = id;
        }
        // Once the wall clock passes the logical clock, ids follow the wall clock again.
        clock.set(1_800_000_100_000L);
        assertEquals(1_800_000_100_000L, Snowflake.timestampMs(snowflake.nextId()));
    }

    @Test
    void rejectsNodeIdsOutOfRange() {
        assertThrows(IllegalArgumentException.class, () -> new Snowflake(-1));
        assertThrows(IllegalArgumentException.class, () -> new Snowflake(1024));
    }
}
