package io.roost.presence.rtc;

import io.roost.platform.cluster.Draining;
import io.roost.presence.store.RtcStore;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.EJB;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Removes offline tombstones once the quit retention has passed (keep a left user for
 * a minute so late duplicates are still recognised).
 *
 * <p>A sweep over an index of offline rows rather than one persistent EJB timer per leave: a
 * timer per leave would be one more row written and loaded per event, whereas the sweep needs no
 * state of its own — the row's own {@code updated_at} is the deadline. It survives restarts by
 * construction (the first tick after start catches up) and runs on every node; concurrent
 * sweeps skip each other's rows.
 */
@Singleton
@Startup
@DependsOn("DatabaseMigrator")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class RtcHousekeeping {

    @Inject
    Draining draining;

    private static final Logger LOG = Logger.getLogger(RtcHousekeeping.class.getName());
    static final int SWEEP_BATCH = 5_000;

    @EJB
    RtcStore store;

    @Inject
    RtcSettings settings;

    private final AtomicBoolean sweeping = new AtomicBoolean();

    @Schedule(hour = "*", minute = "*", second = "*/1", persistent = false, info = "rtc-tombstone-sweep")
    void tick() {
        if (draining.isDraining()) {
            return; // a draining node claims no more work
        }
        sweep();
    }

    /** Deletes every due tombstone in bounded batches; returns how many. */
    public int sweep() {
        if (!sweeping.compareAndSet(false, true)) {
            return 0;
        }
        int total = 0;
        try {
            int deleted;
            do {
                deleted = store.sweepTombstones(settings.quitRetention(), SWEEP_BATCH);
                total += deleted;
            } while (deleted == SWEEP_BATCH);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "RTC tombstone sweep failed; next tick retries", e);
        } finally {
            sweeping.set(false);
        }
        return total;
    }
}
