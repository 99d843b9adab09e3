package io.roost.chat;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Devices' acknowledgements, held as delivered cursors until a write carries them. An
 * acknowledgement moves the owner's delivered cursor of the conversation (the highest seq
 * acknowledged counts). That row is one every send in the conversation, in either direction,
 * rewrites anyway (last message, unread count, version), so a cursor held until then costs no row
 * version, row lock or statement of its own: the send writer takes the held cursors of the
 * conversation rows its batch upserts ({@link ChatWriter#writeAll}) and puts them back if its
 * transaction rolls back. A cursor no send takes within the hold ({@code roost.chat.delivered-hold})
 * is written by itself, with every other one due then, in one transaction ({@link Receipts#delivered}).
 * Either way the peer's delivered receipt goes out after the commit that moved the cursor, so it
 * waits at most the hold and the next flush. A device expects no answer to an acknowledgement;
 * if too many cursors are held, in all or of one user, a new one is dropped and the conversation's
 * next acknowledgement (or read report) moves it. The cap per user keeps one client acknowledging
 * made-up conversations from crowding out everyone else's cursors.
 */
@ApplicationScoped
public class DeliveredCursors {

    private static final Logger LOG = Logger.getLogger(DeliveredCursors.class.getName());
    /** Conversations with a held cursor, at most (a few seconds of acknowledgements at full load). */
    static final int CAPACITY = 100_000;
    /**
     * Conversations with a held cursor of one user, at most: more than a user's devices acknowledge
     * in a hold even when catching up (a conversation at a time, each a round trip).
     */
    static final int PER_OWNER = 1_000;
    static final int BATCH_MAX = 1000;
    /**
     * How often the flush looks for cursors whose hold is over: each look that finds some is a
     * transaction, and against a hold of a second a tenth more wait is nothing a sender notices.
     */
    static final Duration PACING = Duration.ofMillis(100);

    /** A held cursor: the highest seq acknowledged, since when (nanoTime) it is held. */
    private record Held(long seq, long since) {
    }

    /** When a conversation's cursor was first held: the flush's schedule, in that order. */
    private record Due(List<Long> key, long since) {
    }

    @Inject
    Receipts receipts;

    @Inject
    ChatSettings settings;

    @Resource
    ManagedThreadFactory threads;

    @Resource(lookup = "java:jboss/TransactionSynchronizationRegistry")
    TransactionSynchronizationRegistry registry;

    /** Held cursors by {@code List.of(owner, peer)}. */
    private final ConcurrentHashMap<List<Long>, Held> held = new ConcurrentHashMap<>();
    /** How many of {@link #held} are each owner's; changed only inside {@code held}'s compute of the key, so never out of step. */
    private final ConcurrentHashMap<Long, Integer> heldPerOwner = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Due> schedule = new ConcurrentLinkedQueue<>();
    private volatile boolean running = true;
    private Thread flusher;
    private long holdNanos;

    @PostConstruct
    void start() {
        holdNanos = settings.deliveredHold().toNanos();
        flusher = threads.newThread(this::flushLoop);
        flusher.setName("chat-delivered");
        flusher.setDaemon(true);
        flusher.start();
    }

    @PreDestroy
    void stop() {
        running = false;
        flusher.interrupt();
        try {
            flusher.join(Duration.ofSeconds(5).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The owner's device holds every message of the conversation with {@code peer} up to {@code seq}. */
    public void record(long owner, long peer, long seq) {
        List<Long> key = List.of(owner, peer);
        if (!held.containsKey(key) && (held.size() >= CAPACITY || heldPerOwner.getOrDefault(owner, 0) >= PER_OWNER)) {
            LOG.log(Level.FINE, "too many held delivered cursors; the conversation's next acknowledgement moves it");
            return;
        }
        long now = System.nanoTime();
        boolean[] first = {false};
        held.compute(key, (k, old) -> {
            if (old == null) {
                first[0] = true;
                heldPerOwner.merge(owner, 1, Integer::sum);
                return new Held(seq, now);
            }
            return seq > old.seq ? new Held(seq, old.since) : old;
        });
        if (first[0]) {
            schedule.add(new Due(key, now));
        }
    }

    /**
     * Takes the held cursors of these conversation rows ({@code List.of(owner, peer)}) for the
     * current transaction, which rewrites the rows anyway: by key, the highest seq acknowledged.
     * They are held again if the transaction does not commit.
     */
    Map<List<Long>, Long> takeForTransaction(Collection<List<Long>> keys) {
        Map<List<Long>, Long> taken = take(keys);
        if (!taken.isEmpty()) {
            registry.registerInterposedSynchronization(new Synchronization() {
                @Override
                public void beforeCompletion() {
                }

                @Override
                public void afterCompletion(int status) {
                    if (status != Status.STATUS_COMMITTED) {
                        putBack(taken);
                    }
                }
            });
        }
        return taken;
    }

    private Map<List<Long>, Long> take(Collection<List<Long>> keys) {
        Map<List<Long>, Long> taken = new HashMap<>();
        for (List<Long> key : keys) {
            held.computeIfPresent(key, (k, h) -> {
                taken.put(k, h.seq);
                return released(k);
            });
        }
        return taken;
    }

    /** Called as {@code key}'s cursor leaves {@link #held}, inside the compute that removes it; returns null (the removal). */
    private Held released(List<Long> key) {
        heldPerOwner.computeIfPresent(key.get(0), (owner, n) -> n > 1 ? n - 1 : null);
        return null;
    }

    /** Cursors a write took and did not commit: held again (their hold starts over). */
    private void putBack(Map<List<Long>, Long> taken) {
        taken.forEach((key, seq) -> record(key.get(0), key.get(1), seq));
    }

    private void flushLoop() {
        while (running) {
            LockSupport.parkNanos(PACING.toNanos());
            try {
                flushDue(System.nanoTime() - holdNanos, false);
            } catch (RuntimeException e) {
                LOG.log(Level.SEVERE, "delivered-cursor flush error", e);
            }
        }
        flushDue(0, true); // at undeploy, what is still held (best effort, as an acknowledgement expects no answer)
    }

    /**
     * Writes every cursor held since {@code cutoff} (nanoTime) or before, or all of them, a batch a
     * transaction. One thread at a time (the flusher): its peek-then-poll of the schedule is not atomic.
     */
    void flushDue(long cutoff, boolean all) {
        List<Cursor> batch = new ArrayList<>();
        Due due;
        while ((due = schedule.peek()) != null && (all || due.since - cutoff <= 0)) {
            schedule.poll();
            Held[] out = {null};
            long since = due.since;
            // only the hold this entry scheduled: a send may have taken it, and it may be held anew since
            held.computeIfPresent(due.key, (k, h) -> {
                if (h.since != since) {
                    return h;
                }
                out[0] = h;
                return released(k);
            });
            if (out[0] != null) {
                batch.add(new Cursor(due.key.get(0), due.key.get(1), out[0].seq));
            }
            if (batch.size() == BATCH_MAX) {
                write(batch);
                batch = new ArrayList<>();
            }
        }
        if (!batch.isEmpty()) {
            write(batch);
        }
    }

    private void write(List<Cursor> batch) {
        try {
            receipts.delivered(batch);
        } catch (Exception e) { // also the checked HeuristicMixedException of a commit on a dying connection
            LOG.log(Level.WARNING, "delivered cursors of " + batch.size() + " conversations not written; held again", e);
            if (running) {
                batch.forEach(c -> record(c.owner(), c.peer(), c.seq()));
            }
        }
    }
}
