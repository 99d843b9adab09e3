package io.roost.platform.metrics;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SampledTest {

    @Test
    void aReadingIsDueAtOnceThenOncePerInterval() {
        AtomicLong now = new AtomicLong(1_000);
        Sampled sampled = new Sampled(Duration.ofSeconds(10), now::get);

        assertTrue(sampled.due(), "the first tick reads");
        assertFalse(sampled.due(), "a second timer in the same instant does not");
        now.addAndGet(Duration.ofSeconds(9).toNanos());
        assertFalse(sampled.due(), "nor one within the interval");
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        assertTrue(sampled.due(), "the interval is over");
        assertFalse(sampled.due());
    }
}
