package io.roost.client.device;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Jittered exponential backoff between reconnect attempts: attempt {@code n} (0 first) waits a
 * random time between half and all of {@code min(max, initial × 2^n)}, so that thousands of
 * devices a server dropped at once do not come back at once, and never wait more than {@code max}.
 */
public final class Backoff {

    private final long initialMillis;
    private final long maxMillis;
    private final DoubleSupplier random;

    public Backoff(Duration initial, Duration max) {
        this(initial, max, () -> ThreadLocalRandom.current().nextDouble());
    }

    /** With {@code random} giving numbers in [0, 1): a test's own. */
    Backoff(Duration initial, Duration max, DoubleSupplier random) {
        if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("backoff needs 0 < initial <= max, got " + initial + ", " + max);
        }
        this.initialMillis = initial.toMillis();
        this.maxMillis = max.toMillis();
        this.random = random;
    }

    /** The ceiling of attempt {@code attempt}: {@code min(max, initial × 2^attempt)}. */
    public long ceilingMillis(int attempt) {
        int doublings = Math.max(attempt, 0);
        long ceiling = initialMillis;
        for (int i = 0; i < doublings && ceiling < maxMillis; i++) { // stops at max: no overflow
            ceiling *= 2;
        }
        return Math.min(ceiling, maxMillis);
    }

    /** How long to wait before attempt {@code attempt}: in [ceiling / 2, ceiling]. */
    public Duration delay(int attempt) {
        long ceiling = ceilingMillis(attempt);
        long half = ceiling / 2;
        return Duration.ofMillis(half + (long) (random.getAsDouble() * (ceiling - half + 1)));
    }
}
