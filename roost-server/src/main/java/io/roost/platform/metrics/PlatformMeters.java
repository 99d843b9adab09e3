package io.roost.platform.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.TimeUnit;

/**
 * The platform's meters: the outbox ({@code roost.outbox.*}) and the RocketMQ consumers
 * ({@code roost.messaging.*}, by consumer group).
 */
@ApplicationScoped
public class PlatformMeters {

    @Inject
    Meters meters;

    private Counter relayed;
    private final Sampled outboxSample = new Sampled();
    private volatile long outboxBacklog;
    private volatile double outboxLagSeconds;

    /** Meters over given ones, registered (a unit test). */
    public static PlatformMeters over(Meters meters) {
        PlatformMeters m = new PlatformMeters();
        m.meters = meters;
        m.register();
        return m;
    }

    @PostConstruct
    void register() {
        relayed = meters.counter("roost.outbox.relayed", "Outbox rows sent to RocketMQ by this node");
        meters.gauge("roost.outbox.backlog", "Outbox rows not yet sent to RocketMQ, cluster-wide (counted up to "
                + OUTBOX_COUNTED_UP_TO + "; read from the database every " + Sampled.EVERY.toSeconds() + " s)", this, m -> m.outboxBacklog);
        meters.secondsGauge("roost.outbox.lag", "Age of the oldest outbox row not yet sent, cluster-wide (0: none; read every "
                + Sampled.EVERY.toSeconds() + " s)", this, m -> m.outboxLagSeconds);
    }

    /** The outbox backlog gauge counts rows up to this many (a count beyond it would cost a scan of them all). */
    public static final int OUTBOX_COUNTED_UP_TO = 100_000;

    /** Rows a relay batch sent (and deleted, in its committed transaction). */
    public void relayed(int rows) {
        if (rows > 0) {
            relayed.increment(rows);
        }
    }

    /** Whether the outbox gauges are due to be read from the database (to one caller per interval). */
    public boolean outboxDue() {
        return outboxSample.due();
    }

    /** The outbox backlog last read (the console's chart samples it: one number for Grafana and the console). */
    public long outboxBacklog() {
        return outboxBacklog;
    }

    /** The outbox as read from the database: rows waiting, and the age of the oldest in seconds. */
    public void outbox(long backlog, double oldestSeconds) {
        outboxBacklog = backlog;
        outboxLagSeconds = oldestSeconds;
    }

    /** A consumer group's lag in messages (the broker's newest offsets less the group's committed ones), read from {@code lag}. */
    public <T> void lag(String group, T source, java.util.function.ToDoubleFunction<T> lag) {
        meters.gauge("roost.messaging.lag", "Messages on the broker not yet consumed, per consumer group of this node (-1: unknown;"
                + " measured every 10 s)", source, lag, "group", group);
    }

    /** The meters of one consumer group, held by its consumer; {@code group} is a label from the code's consumer specs. */
    public Consumer consumer(String group) {
        return new Consumer(
                meters.counter("roost.messaging.consumed", "Messages handled (committed) per consumer group", "group", group),
                meters.latency("roost.messaging.delay", "From a message's birth at the producer to its handling, per consumer group",
                        "group", group),
                meters.counter("roost.messaging.failures", "Messages whose handling failed and that RocketMQ delivers again, per"
                        + " consumer group", "group", group),
                meters.counter("roost.messaging.dead.letters", "Messages whose handling failed on their last redelivery (RocketMQ"
                        + " moves them to the group's dead-letter queue), per consumer group", "group", group));
    }

    /** A consumer group's meters. */
    public record Consumer(Counter consumed, Timer delay, Counter failures, Counter deadLetters) {

        /** A message handled {@code delayMillis} after its birth (a producer's clock ahead of ours counts as no delay). */
        public void handled(long delayMillis) {
            consumed.increment();
            delay.record(Math.max(0, delayMillis), TimeUnit.MILLISECONDS);
        }

        /** A handling failed: {@code redelivered} messages come again, {@code dead} go to the dead-letter queue. */
        public void failed(int redelivered, int dead) {
            if (redelivered > 0) {
                failures.increment(redelivered);
            }
            if (dead > 0) {
                deadLetters.increment(dead);
            }
        }
    }
}
