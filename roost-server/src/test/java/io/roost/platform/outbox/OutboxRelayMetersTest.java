package io.roost.platform.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.roost.platform.metrics.Meters;
import io.roost.platform.metrics.PlatformMeters;
import io.roost.platform.store.OutboxStore;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class OutboxRelayMetersTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Meters meters = Meters.over(registry);

    /** An outbox whose batches send what the test says, and whose gauges' reading is counted. */
    static final class FakeOutbox extends OutboxStore {
        final Queue<OutboxStore.BatchResult> batches = new ArrayDeque<>();
        final AtomicInteger readings = new AtomicInteger();

        @Override
        public BatchResult relayBatch(int limit, long fromId) {
            BatchResult next = batches.poll();
            return next == null ? new BatchResult(0, 0, false, false) : next;
        }

        @Override
        public Waiting waiting(int countUpTo) {
            readings.incrementAndGet();
            return new Waiting(7, 2.5);
        }
    }

    private OutboxRelay relay(FakeOutbox outbox) {
        OutboxRelay relay = new OutboxRelay();
        relay.store = outbox;
        relay.meters = PlatformMeters.over(meters);
        return relay;
    }

    @Test
    void theRowsEachBatchSentAreCountedAsRelayedAlsoWhenABatchFailsPartway() {
        FakeOutbox outbox = new FakeOutbox();
        outbox.batches.addAll(List.of(new OutboxStore.BatchResult(OutboxRelay.BATCH, 900, false, false),
                new OutboxStore.BatchResult(3, 950, true, true)));

        int sent = relay(outbox).drain();

        assertEquals(OutboxRelay.BATCH + 3, sent);
        assertEquals(OutboxRelay.BATCH + 3, meters.total("roost.outbox.relayed"));
    }

    @Test
    void theTimerReadsTheGaugesAtOnceAndThenNotAgainWithinTheInterval() {
        FakeOutbox outbox = new FakeOutbox();
        OutboxRelay relay = relay(outbox);

        relay.tick();
        relay.tick();

        assertEquals(1, outbox.readings.get(), "one reading per interval, not per tick");
        assertEquals(7, registry.get("roost.outbox.backlog").gauge().value());
        assertEquals(2.5, registry.get("roost.outbox.lag").gauge().value());
    }
}
