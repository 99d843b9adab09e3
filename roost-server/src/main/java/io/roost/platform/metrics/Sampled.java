package io.roost.platform.metrics;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * When a gauge read from the database is read again: at most once per interval, by a timer the
 * module runs anyway, never by the scrape (a scrape that queried the database would cost a
 * statement per scraper and hang with the database). The gauge shows the last value read.
 */
public final class Sampled {

    /** How often a cluster-wide gauge is read from the database, at most. */
    public static final Duration EVERY = Duration.ofSeconds(10);

    private final long intervalNanos;
    private final LongSupplier nanoClock;
    private final AtomicLong nextAt;

    public Sampled() {
        this(EVERY, System::nanoTime);
    }

    Sampled(Duration interval, LongSupplier nanoClock) {
        this.intervalNanos = interval.toNanos();
        this.nanoClock = nanoClock;
        this.nextAt = new AtomicLong(nanoClock.getAsLong()); // the first call reads at once
    }

    /** Whether a reading is due now: true to one caller per interval, whatever the number of timers asking. */
    public boolean due() {
        long now = nanoClock.getAsLong();
        long next = nextAt.get();
        return now - next >= 0 && nextAt.compareAndSet(next, now + intervalNanos);
    }
}
