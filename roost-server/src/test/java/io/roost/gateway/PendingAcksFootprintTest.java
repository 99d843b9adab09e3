package io.roost.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What 100,000 pending acknowledgements cost: 10,000 connections with 10 messages each, every
 * connection with its one wheel entry, as {@link AckWheel} holds them. Printed, and bounded well
 * below what one object per message (or a kept frame per message) would take.
 */
class PendingAcksFootprintTest {

    @Test
    void aHundredThousandPendingAcknowledgementsCostAFewMegabytes() throws Exception {
        HashedWheelTimer wheel = new HashedWheelTimer(100, TimeUnit.MILLISECONDS, 512);
        try {
            long before = usedHeap();
            List<PendingAcks> connections = new ArrayList<>();
            List<Timeout> entries = new ArrayList<>();
            for (int c = 0; c < 10_000; c++) {
                PendingAcks acks = new PendingAcks(Long.toString(1_000_000_000_000L + c), c);
                for (int m = 1; m <= 10; m++) {
                    if (acks.add(c + 1, m, true, m)) {
                        entries.add(wheel.newTimeout(t -> { }, 1, TimeUnit.HOURS));
                    }
                }
                connections.add(acks);
            }
            long bytes = usedHeap() - before;
            assertEquals(100_000, connections.stream().mapToInt(PendingAcks::size).sum());
            assertEquals(10_000, entries.size(), "one wheel entry per connection, not per message");
            System.out.printf("100,000 pending acknowledgements on 10,000 connections: %.1f MB of heap (%d bytes each)%n",
                    bytes / 1e6, bytes / 100_000);
            assertTrue(bytes < 12_000_000, "100,000 pending acknowledgements took " + bytes + " bytes");
        } finally {
            wheel.stop();
        }
    }

    private static long usedHeap() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
