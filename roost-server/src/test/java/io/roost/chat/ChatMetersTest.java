package io.roost.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.roost.platform.batch.GroupCommit;
import io.roost.platform.batch.PlainThreads;
import io.roost.platform.cluster.Draining;
import io.roost.platform.metrics.Meters;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ChatMetersTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Meters meters = Meters.over(registry);
    private final ChatMeters chat = ChatMeters.over(meters);

    @Test
    void sendsCountByKindAndTheConsoleReadsTheirTotal() {
        chat.sent(3);
        chat.groupSent(2);
        chat.sent(0);

        assertEquals(3, registry.get("roost.chat.sends").tag("kind", "one_to_one").counter().count());
        assertEquals(2, registry.get("roost.chat.sends").tag("kind", "group").counter().count());
        assertEquals(5, meters.total("roost.chat.sends"));
        assertEquals(0, meters.total("roost.chat.seq.conflicts"), "registered, and nothing can collide");
    }

    @Test
    void theSendQueuesDepthIsTheirSumAndEachBatchGoesIntoTheHistogram() throws Exception {
        GroupCommit<Integer> oneToOne = new GroupCommit<>("test-send", 100, () -> 100, batch -> { });
        GroupCommit<Integer> group = new GroupCommit<>("test-group-send", 100, () -> 100, batch -> { });
        chat.sendQueue(oneToOne);
        chat.sendQueue(group);
        for (int i = 0; i < 3; i++) {
            oneToOne.offer(i);
        }
        group.offer(9);
        assertEquals(4, registry.get("roost.chat.send.queue").gauge().value(), "waiting before the writers start");

        oneToOne.start(PlainThreads.FACTORY, 1);
        group.start(PlainThreads.FACTORY, 1);
        try {
            DistributionSummary batches = registry.get("roost.chat.send.batch").summary();
            awaitTrue(() -> batches.count() == 2);
            assertEquals(4, batches.totalAmount(), "a batch of three and one of one");
            assertEquals(3, batches.max());
            assertEquals(0, registry.get("roost.chat.send.queue").gauge().value());
        } finally {
            oneToOne.stop();
            group.stop();
        }
    }

    @Test
    void readReportBatchesGoIntoTheirOwnHistogram() throws Exception {
        GroupCommit<Integer> reads = new GroupCommit<>("test-read", 100, () -> 100, batch -> { });
        chat.readQueue(reads);
        reads.offer(1);
        reads.offer(2);
        assertEquals(2, registry.get("roost.chat.read.queue").gauge().value());
        reads.start(PlainThreads.FACTORY, 1);
        try {
            DistributionSummary batches = registry.get("roost.chat.read.batch").summary();
            awaitTrue(() -> batches.count() == 1);
            assertEquals(2, batches.totalAmount());
            assertEquals(0, registry.get("roost.chat.send.batch").summary().count());
        } finally {
            reads.stop();
        }
    }

    /** The offline-push timer reads the backlog at most once per interval, and not at all while the node drains. */
    @Test
    void theOfflinePushTimerReadsTheBacklogOncePerIntervalAndNeverWhileDraining() {
        AtomicInteger readings = new AtomicInteger();
        OfflinePushFlush flush = new OfflinePushFlush();
        flush.meters = chat;
        flush.draining = new Draining();
        flush.pushes = new OfflinePushes() {
            @Override
            public long waiting() {
                readings.incrementAndGet();
                return 12;
            }

            @Override
            public int flush() {
                return 0;
            }
        };

        flush.draining.start();
        flush.tick();
        assertEquals(0, readings.get(), "a draining node reads nothing");

        flush.draining = new Draining();
        flush.tick();
        flush.tick();
        assertEquals(1, readings.get());
        assertEquals(12, registry.get("roost.chat.offline.backlog").gauge().value());
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(condition.getAsBoolean());
    }
}
