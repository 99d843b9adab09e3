package io.roost.room;

import io.roost.platform.cluster.Draining;
import io.roost.platform.cluster.OncePerCluster;
import io.roost.room.store.RoomStore;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.EJB;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The live-room timers. Each is a sweep over rows whose own timestamps are the deadlines, so
 * there is no timer per viewer, restarts catch up on the first tick, and every node may run them:
 * timeout and clear batches skip each other's locked rows ({@code FOR UPDATE SKIP LOCKED}), a
 * session is closed and its counts are claimed by one conditional row update each, and the history
 * purge runs on one node at a time ({@link OncePerCluster}).
 *
 * <ul>
 * <li>viewers silent past the timeout leave; anchors silent past theirs
 * have the session closed;</li>
 * <li>a closed session's viewers go offline in batches of {@value #BATCH}, each its own short
 * transaction — closing a room of 100,000 never holds one lock set over all of them — with a
 * pause as long as the batch after each one, so the clearing never takes more than about half a
 * core from the rooms still live (one huge room must not stall the others, not only avoid their locks);</li>
 * <li>open sessions' counts go to {@code roost-room-events} every interval;</li>
 * <li>history older than the retention is deleted.</li>
 * </ul>
 */
@Singleton
@Startup
@DependsOn("DatabaseMigrator")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class RoomHousekeeping {

    @Inject
    Draining draining;

    private static final Logger LOG = Logger.getLogger(RoomHousekeeping.class.getName());
    static final int BATCH = 2_000;

    @EJB
    RoomStore store;

    @EJB
    OncePerCluster perCluster;

    @Inject
    LiveRooms rooms;

    @Inject
    RoomSettings settings;

    private final AtomicBoolean sweeping = new AtomicBoolean();
    private final AtomicBoolean clearing = new AtomicBoolean();
    private final AtomicBoolean publishing = new AtomicBoolean();
    private final AtomicBoolean purging = new AtomicBoolean();

    @Schedule(hour = "*", minute = "*", second = "*", persistent = false, info = "room-timeouts")
    void sweepTick() {
        if (draining.isDraining()) {
            return; // a draining node claims no more work
        }
        once(sweeping, this::sweepTimeouts);
        rooms.forgetStale();
    }

    @Schedule(hour = "*", minute = "*", second = "*", persistent = false, info = "room-clear")
    void clearTick() {
        if (draining.isDraining()) {
            return; // a draining node claims no more work
        }
        once(clearing, this::clearClosed);
    }

    @Schedule(hour = "*", minute = "*", second = "*", persistent = false, info = "room-counts")
    void countsTick() {
        if (draining.isDraining()) {
            return; // a draining node claims no more work
        }
        once(publishing, () -> rooms.publishDueCounts(settings.countsInterval()));
    }

    @Schedule(hour = "*", minute = "*/10", persistent = false, info = "room-history-purge")
    void purgeTick() {
        if (draining.isDraining()) {
            return; // a draining node claims no more work
        }
        once(purging, () -> drain(() -> perCluster.run("room-history-purge",
                () -> store.purgeHistory(settings.historyRetention(), BATCH)), true));
    }

    /** Timed-out viewers leave; timed-out anchors' sessions close. Returns how many of both. */
    public int sweepTimeouts() {
        int viewers = drain(() -> store.sweepViewers(settings.viewerTimeout(), BATCH), false);
        int sessions = 0;
        for (long id : store.anchorTimedOut(settings.anchorTimeout())) {
            sessions += rooms.closeSession(id, "anchor_timeout").isPresent() ? 1 : 0;
        }
        return viewers + sessions;
    }

    /** Takes the viewers of closed sessions offline; returns how many. */
    public int clearClosed() {
        int total = 0;
        for (long id : store.unclearedSessions()) {
            total += drain(() -> store.clearBatch(id, BATCH), true);
            store.markCleared(id);
        }
        return total;
    }

    /**
     * Repeats a batch until it comes back short; the total. Background work ({@code paced}) pauses
     * after each full batch as long as the batch took, leaving the database to live traffic half the time.
     */
    private static int drain(IntSupplier batch, boolean paced) {
        int total = 0;
        int n;
        do {
            long started = System.nanoTime();
            n = batch.getAsInt();
            total += n;
            if (paced && n >= BATCH) {
                pause(System.nanoTime() - started);
            }
        } while (n >= BATCH);
        return total;
    }

    private static void pause(long nanos) {
        try {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // shutting down: the next start resumes the clearing
            throw new IllegalStateException("interrupted while pacing a housekeeping batch", e);
        }
    }

    private static void once(AtomicBoolean running, IntSupplier work) {
        if (!running.compareAndSet(false, true)) {
            return;
        }
        try {
            work.getAsInt();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "live-room housekeeping failed; the next tick retries", e);
        } finally {
            running.set(false);
        }
    }
}
