package io.roost.platform.outbox;

import io.roost.platform.ids.Snowflake;
import io.roost.platform.metrics.PlatformMeters;
import io.roost.platform.store.OutboxStore;
import jakarta.annotation.Resource;
import jakarta.ejb.Asynchronous;
import jakarta.ejb.SessionContext;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.EJB;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Sends outbox rows to RocketMQ. Woken right after a commit that wrote rows, and by a timer as a
 * safety net (rows written on another node, rows whose send failed and are due again).
 *
 * <p>One drain at a time per node: a nudge that arrives during a drain only asks for one more
 * round. Across nodes, batches are claimed with {@code FOR UPDATE SKIP LOCKED}, so two nodes never
 * send the same row at the same time.
 *
 * <p>A round claims from the ids of the last {@link #RECENT} on: the rows below were sent already,
 * and their index entries, dead until vacuum, would be walked again by every claim. The rare row
 * below that (a transaction that committed later than that after taking its id, a row backing off
 * after the broker refused it) is found by the timer's sweep, which starts from the lowest id.
 *
 * <p>While the broker is out of reach the rows stay due and only the timer tries again, every
 * second: commits keep nudging, and each nudge would be one more failed send (and log line).
 * The first tick after the broker's return sends the whole backlog, batch after batch.
 */
@Singleton
@Startup
@DependsOn("DatabaseMigrator")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class OutboxRelay {

    private static final Logger LOG = Logger.getLogger(OutboxRelay.class.getName());
    static final int BATCH = 200;
    /** Under a stream of commits, a drain round at most this often. */
    public static final Duration LINGER = Duration.ofMillis(50);
    /** How far back in id time a round (not a sweep) starts: far longer than a publishing transaction commits in. */
    public static final Duration RECENT = Duration.ofSeconds(2);

    @EJB
    OutboxStore store;

    @Inject
    PlatformMeters meters;

    private final AtomicBoolean draining = new AtomicBoolean();
    private final AtomicBoolean again = new AtomicBoolean();
    /** Whether the next round starts from the lowest id (the timer asks, every tick; so does the first round). */
    private final AtomicBoolean sweep = new AtomicBoolean(true);
    private final AtomicLong rounds = new AtomicLong();
    private volatile long lastRoundStarted = System.nanoTime() - LINGER.toNanos();
    /** Set when a send failed because the broker is out of reach; nudges wait for the timer until it is cleared. */
    private volatile boolean brokerUnreachable;

    @Resource
    SessionContext context;

    public void afterCommit(@Observes(during = TransactionPhase.AFTER_SUCCESS) OutboxWritten event) {
        // Coalesce: a burst of commits while a drain runs costs one more round, not one per row.
        if (brokerUnreachable) {
            return; // the timer tries again
        }
        if (draining.get()) {
            again.set(true);
        } else {
            context.getBusinessObject(OutboxRelay.class).nudge();
        }
    }

    @Asynchronous
    public void nudge() {
        drain();
    }

    /**
     * Every second: while the broker is out of reach, the most the backlog waits after its return.
     * Every tenth second or so it also reads the outbox gauges, before the drain, which may take long
     * when a backlog goes out (and the gauges matter then). A draining node reads them too: its relay
     * still sends.
     */
    @Schedule(hour = "*", minute = "*", second = "*", persistent = false, info = "outbox-relay")
    void tick() {
        if (meters.outboxDue()) {
            try {
                OutboxStore.Waiting w = store.waiting(PlatformMeters.OUTBOX_COUNTED_UP_TO);
                meters.outbox(w.rows(), w.oldestSeconds());
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "outbox gauges not read; the next interval tries again", e);
            }
        }
        sweep.set(true); // a round already running sweeps in its next round
        drain();
    }

    /** Whether the last send failed because the broker is out of reach (cleared by the next send that goes out). */
    public boolean brokerUnreachable() {
        return brokerUnreachable;
    }

    /** Rows waiting to be sent (the admin overview shows it). */
    public long backlog() {
        return store.backlog();
    }

    /** Drain rounds since start (each one polls the outbox at least once). */
    public long rounds() {
        return rounds.get();
    }

    /** Sends everything that is due; returns how many messages went out. */
    public int drain() {
        if (!draining.compareAndSet(false, true)) {
            again.set(true);
            return 0;
        }
        int total = 0;
        try {
            do {
                // A stream of commits (a login burst) would cost a poll, a send and a delete every few
                // rows, the poll walking the index entries of the rows just deleted: a round starts at
                // most every LINGER, and the commits meanwhile go with it. A lone commit goes at once.
                LockSupport.parkNanos(LINGER.toNanos() - (System.nanoTime() - lastRoundStarted));
                again.set(false);
                rounds.incrementAndGet();
                lastRoundStarted = System.nanoTime();
                long from = sweep.getAndSet(false) ? 0 : Snowflake.firstIdAt(System.currentTimeMillis() - RECENT.toMillis());
                OutboxStore.BatchResult result;
                do {
                    result = store.relayBatch(BATCH, from);
                    total += result.sent();
                    meters.relayed(result.sent()); // committed: relayBatch has its own transaction
                    brokerUnreachable = result.brokerUnreachable();
                    if (result.failed()) {
                        return total; // broker trouble: the timer tries again
                    }
                    from = result.lastId() + 1; // what this round skipped below (locked by another node) is not ours
                } while (result.sent() == BATCH); // a batch that did not fail sent all it claimed
            } while (again.get());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "Outbox relay round failed; the timer retries", e);
        } finally {
            draining.set(false);
        }
        return total;
    }
}
