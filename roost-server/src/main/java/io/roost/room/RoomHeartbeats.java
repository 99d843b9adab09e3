package io.roost.room;

import io.roost.room.store.RoomStore;
import io.roost.social.SocialGraph;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Viewer heartbeats without a transaction each (100,000 viewers at 10 s are 10,000 a second): a
 * heartbeat only lands in this node's buffer, and once a second each session's buffered uids are
 * written by one statement, with their fan flags re-checked in one follow-graph probe. A viewer
 * whose follow changed shows it after its next heartbeat plus at most a second.
 *
 * <p>The drops of this node's connections (a viewer's device went away) go through the same
 * buffer, so that each viewer's last word wins in the order this node heard them: a heartbeat
 * buffered just before its connection closed must not be written after the drop and bring the
 * viewer back (a heartbeat brings back a dropped viewer: another device of theirs is alive). A
 * viewer whose last word was a drop leaves within a second, by one statement per session.
 */
@Singleton
@Startup
@DependsOn("DatabaseMigrator")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class RoomHeartbeats {

    private static final Logger LOG = Logger.getLogger(RoomHeartbeats.class.getName());
    static final int CHUNK = 5_000;

    /**
     * One session's viewers waiting for the next flush, each with its last word: a heartbeat
     * ({@code true}) or a drop ({@code false}). Only touched under the map's lock for its key.
     */
    private record Pending(long anchorId, Map<Long, Boolean> alive) {
    }

    @EJB
    RoomStore store;

    @Inject
    SocialGraph social;

    private final ConcurrentHashMap<Long, Pending> pending = new ConcurrentHashMap<>();
    /**
     * One flush at a time: a flush that took a session's uids is still writing them when another
     * call finds the buffer empty, and a caller of {@link #flush} expects them written when it returns.
     */
    private final ReentrantLock flushing = new ReentrantLock();

    public void mark(long sessionId, long anchorId, Collection<Long> uids) {
        record(sessionId, anchorId, uids, true, true);
    }

    /** A connection that watched closed: its viewer leaves at the next flush, unless a heartbeat of theirs comes after. */
    public void markDropped(long sessionId, long anchorId, long uid) {
        record(sessionId, anchorId, List.of(uid), false, true);
    }

    /**
     * Buffers these viewers' word; {@code newest} false (a failed chunk tried again) keeps a word
     * that came in meanwhile instead.
     */
    private void record(long sessionId, long anchorId, Collection<Long> uids, boolean alive, boolean newest) {
        pending.compute(sessionId, (k, p) -> {
            Pending into = p == null ? new Pending(anchorId, new HashMap<>()) : p;
            for (Long uid : uids) {
                if (newest) {
                    into.alive().put(uid, alive);
                } else {
                    into.alive().putIfAbsent(uid, alive);
                }
            }
            return into;
        });
    }

    @Schedule(hour = "*", minute = "*", second = "*", persistent = false, info = "room-heartbeat-flush")
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    void tick() {
        if (flushing.tryLock()) { // a flush still running takes what is buffered next
            try {
                writeBuffered();
            } finally {
                flushing.unlock();
            }
        }
    }

    /**
     * Writes every buffered heartbeat, after any flush already running (so what was buffered before
     * the call is written when it returns); returns how many viewer rows it refreshed.
     */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public int flush() {
        flushing.lock();
        try {
            return writeBuffered();
        } finally {
            flushing.unlock();
        }
    }

    private int writeBuffered() {
        long started = System.nanoTime();
        int refreshed = 0;
        for (Long sessionId : List.copyOf(pending.keySet())) {
            Pending p = pending.remove(sessionId); // atomic with record(): a later word starts a new entry
            if (p == null) {
                continue;
            }
            for (Long[] chunk : chunksOf(p, true)) {
                try {
                    Set<Long> fans = social.followersAmong(p.anchorId(), Arrays.asList(chunk));
                    Boolean[] fan = Arrays.stream(chunk).map(fans::contains).toArray(Boolean[]::new);
                    refreshed += store.heartbeat(sessionId, chunk, fan);
                } catch (RuntimeException e) {
                    record(sessionId, p.anchorId(), Arrays.asList(chunk), true, false); // the next flush tries again
                    LOG.log(Level.WARNING, "room heartbeat flush of " + chunk.length + " viewers failed", e);
                }
            }
            for (Long[] chunk : chunksOf(p, false)) {
                try {
                    store.leave(sessionId, chunk, true);
                } catch (RuntimeException e) {
                    record(sessionId, p.anchorId(), Arrays.asList(chunk), false, false);
                    LOG.log(Level.WARNING, "room drop flush of " + chunk.length + " viewers failed", e);
                }
            }
        }
        long ms = (System.nanoTime() - started) / 1_000_000;
        if (ms > 1_000) { // the next ticks are skipped meanwhile: worth knowing when the database falls behind
            int rows = refreshed;
            LOG.warning(() -> "room heartbeat flush of " + rows + " viewers took " + ms + " ms");
        }
        return refreshed;
    }

    /** The viewers whose last word was a heartbeat ({@code alive}) or a drop, in uid order, {@link #CHUNK} at a time. */
    private static List<Long[]> chunksOf(Pending p, boolean alive) {
        Long[] uids = p.alive().entrySet().stream().filter(e -> e.getValue() == alive).map(Map.Entry::getKey).sorted()
                .toArray(Long[]::new);
        List<Long[]> chunks = new ArrayList<>();
        for (int from = 0; from < uids.length; from += CHUNK) {
            chunks.add(Arrays.copyOfRange(uids, from, Math.min(uids.length, from + CHUNK)));
        }
        return chunks;
    }
}
