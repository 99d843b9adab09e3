package io.roost.client.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void theCeilingDoublesFromTheInitialWaitUpToTheMaximumAndStaysThere() {
        Backoff b = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30));
        long[] expected = {500, 1000, 2000, 4000, 8000, 16000, 30000, 30000};
        for (int attempt = 0; attempt < expected.length; attempt++) {
            assertEquals(expected[attempt], b.ceilingMillis(attempt), "attempt " + attempt);
        }
        assertEquals(30000, b.ceilingMillis(10_000), "a very late attempt neither overflows nor passes the maximum");
    }

    @Test
    void eachDelayLiesBetweenHalfTheCeilingAndTheCeilingAtBothEndsOfTheRandomRange() {
        Backoff low = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30), () -> 0.0);
        Backoff high = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30), () -> 0.999_999_999);
        for (int attempt = 0; attempt < 12; attempt++) {
            long ceiling = low.ceilingMillis(attempt);
            assertEquals(ceiling / 2, low.delay(attempt).toMillis(), "attempt " + attempt);
            assertEquals(ceiling, high.delay(attempt).toMillis(), "attempt " + attempt);
        }
    }

    @Test
    void realJitterSpreadsTheDevicesOverTheRangeAndNeverLeavesIt() {
        Backoff b = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(8));
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 2_000; i++) {
            long d = b.delay(3).toMillis();
            assertTrue(d >= 4000 && d <= 8000, d + " ms");
            seen.add(d);
        }
        assertTrue(seen.size() > 500, "2,000 draws gave only " + seen.size() + " different waits");
    }

    @Test
    void aMaximumBelowTheInitialWaitIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ZERO, Duration.ofSeconds(1)));
    }
}
