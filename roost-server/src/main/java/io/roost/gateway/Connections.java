package io.roost.gateway;

import io.roost.presence.session.SessionEnded;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import jakarta.websocket.CloseReason;
import jakarta.websocket.Session;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/** This node's live WebSocket connections by connection id, and the kick of one of them. */
@ApplicationScoped
public class Connections {

    private static final Logger LOG = Logger.getLogger(Connections.class.getName());

    /** Frames queued on one connection and not yet written, at most (about 1 MB of chat frames). */
    static final int MAX_UNWRITTEN = 2_000;
    /** The close reason of a connection that fell {@link #MAX_UNWRITTEN} frames behind. */
    public static final String SLOW_CONSUMER = "slow-consumer";

    private final Map<String, Outbound> open = new ConcurrentHashMap<>();

    @jakarta.inject.Inject
    GroupFanout groups;

    @jakarta.inject.Inject
    GatewayMeters meters;

    public void add(String connectionId, Outbound outbound) {
        open.put(connectionId, outbound);
    }

    /**
     * The connection's login is done ({@code deviceType} a known type): it counts as logged in while
     * it is open. Nothing if it is gone already (kicked or closed while logging in).
     */
    public void loggedIn(String connectionId, String deviceType) {
        Outbound outbound = open.get(connectionId);
        if (outbound != null) {
            outbound.deviceType = deviceType;
        }
    }

    /** This node's logged-in connections of a device type now, counted from the open ones (for a gauge, read per scrape). */
    public int loggedIn(String deviceType) {
        int n = 0;
        for (Outbound outbound : open.values()) {
            if (deviceType.equals(outbound.deviceType)) {
                n++;
            }
        }
        return n;
    }

    public void remove(String connectionId) {
        open.remove(connectionId);
        groups.offline(connectionId);
    }

    /** Whether this node holds the connection (logged in, or logging in). */
    public boolean has(String connectionId) {
        return open.containsKey(connectionId);
    }

    /**
     * Whether every frame queued on this connection has been written to its socket (none waits in
     * its write queue or behind its login): what it was sent, it could have acknowledged.
     */
    public boolean allWritten(String connectionId) {
        Outbound outbound = open.get(connectionId);
        return outbound == null || outbound.allWritten();
    }

    /** Writes a frame to one of this node's connections, if it is still open. */
    public void send(String connectionId, String text) {
        Outbound outbound = open.get(connectionId);
        if (outbound != null) {
            outbound.send(text);
        }
    }

    /**
     * One connection's way out: its session, the write queue of its IO thread, and how many of its
     * frames are queued and not yet written. (The count lives here, not in the session's user
     * properties: that map is synchronized, and a lookup per frame cost more than the count.)
     */
    public static final class Outbound {

        private final Session session;
        private final WriteQueue writes;
        private final AtomicInteger unwritten = new AtomicInteger();
        /** Set once a close is queued: frames after it would only be dropped, and one close is enough. */
        private final AtomicBoolean closing = new AtomicBoolean();
        /**
         * While a login is in flight ({@link #hold}), the frames and the close sent to the connection,
         * in order; null otherwise. Volatile, so that a send checks it without a lock once released.
         */
        private volatile List<Runnable> held;
        /** Requests begun and not yet answered ({@link #begin}). */
        private final AtomicInteger unanswered = new AtomicInteger();
        /** Set when the connection's node drains it: it starts no more requests. */
        private volatile boolean ending;
        /** The device type once logged in ({@link Connections#loggedIn(String, String)}); null before. */
        private volatile String deviceType;

        /** {@code ioThread}: the thread that owns the connection's socket ({@link #DIRECT} where there is none). */
        public Outbound(Session session, Executor ioThread) {
            this.session = session;
            this.writes = WRITE_QUEUES.computeIfAbsent(ioThread, WriteQueue::new);
        }

        /**
         * Queues a frame and returns: the connection's IO thread writes it ({@link WriteQueue}), after
         * every frame and close queued on this connection before it, from any thread. A device that
         * reads slower than it is sent to, with {@link #MAX_UNWRITTEN} frames queued and not yet
         * written, is closed with 1008 {@code slow-consumer}: it reconnects and catches up rather
         * than hold the node's memory.
         */
        public void send(String text) {
            if (held != null && heldBack(() -> enqueue(text))) {
                return;
            }
            enqueue(text);
        }

        /**
         * Holds back every frame and close sent from now on until {@link #release}: a login registers
         * its connection before it commits (a push or a kick may follow the commit at once), and its
         * answer is still the first frame of the session.
         */
        public synchronized void hold() {
            held = new ArrayList<>();
        }

        /** Queues {@code first} (if not null), then what was held back, in order; frames go straight out again. */
        public synchronized void release(String first) {
            List<Runnable> later = held;
            if (first != null) {
                enqueue(first);
            }
            if (later != null) {
                later.forEach(Runnable::run);
            }
            held = null;
        }

        /**
         * A request of this connection begins; the returned end (which counts once, however often
         * it is called) says it was answered. A drain waits for the connection's requests to be
         * answered before it ends the session.
         */
        public Runnable begin() {
            unanswered.incrementAndGet();
            AtomicBoolean ended = new AtomicBoolean();
            return () -> {
                if (ended.compareAndSet(false, true)) {
                    unanswered.decrementAndGet();
                }
            };
        }

        /** Requests begun and not answered yet. */
        public int unanswered() {
            return unanswered.get();
        }

        /** Its node drains it: from now on it starts no requests ({@link #ending()}). */
        public void end() {
            ending = true;
        }

        public boolean ending() {
            return ending;
        }

        boolean allWritten() {
            return held == null && unwritten.get() == 0;
        }

        private synchronized boolean heldBack(Runnable send) {
            if (held == null) {
                return false; // released meanwhile
            }
            held.add(send);
            return true;
        }

        private void enqueue(String text) {
            if (closing.get() || !session.isOpen()) {
                return;
            }
            if (unwritten.incrementAndGet() > MAX_UNWRITTEN) {
                unwritten.decrementAndGet();
                LOG.log(Level.INFO, "closing connection {0}: {1} frames wait to be written to it", new Object[] {session.getId(), MAX_UNWRITTEN});
                close(CloseReason.CloseCodes.VIOLATED_POLICY, SLOW_CONSUMER);
                return;
            }
            writes.submit(() -> write(text));
        }

        /** On the IO thread: hands the frame to the socket, which calls back once it is written. */
        private void write(String text) {
            if (!session.isOpen()) {
                unwritten.decrementAndGet();
                return;
            }
            try {
                session.getAsyncRemote().sendText(text, result -> {
                    unwritten.decrementAndGet();
                    if (!result.isOK()) {
                        LOG.log(Level.FINE, "send failed", result.getException());
                    }
                });
            } catch (IllegalStateException | IllegalArgumentException e) {
                unwritten.decrementAndGet();
                LOG.log(Level.FINE, "send failed", e);
            }
        }

        /** Closes the connection once the frames queued before the close are handed to the socket (its close frame follows them). */
        public void close(CloseReason.CloseCode code, String reason) {
            if (held != null && heldBack(() -> closeNow(code, reason))) {
                return;
            }
            closeNow(code, reason);
        }

        private void closeNow(CloseReason.CloseCode code, String reason) {
            if (!closing.compareAndSet(false, true)) {
                return;
            }
            writes.submit(() -> {
                try {
                    session.close(new CloseReason(code, reason));
                } catch (IOException | IllegalStateException e) {
                    LOG.log(Level.FINE, "close failed", e);
                }
            });
        }
    }

    /** Runs a connection's writes on the calling thread: for a session with no IO thread of its own (tests). */
    public static final Executor DIRECT = Runnable::run;

    /** One write queue per IO thread (a node has a handful). */
    private static final Map<Executor, WriteQueue> WRITE_QUEUES = new ConcurrentHashMap<>();

    /**
     * The writes of one IO thread's connections, from every thread, run on that IO thread in the
     * order they were queued. Undertow hands a frame written from another thread to the IO thread
     * as a task of its own (a task and a selector wake-up per frame, four or five per chat
     * message). Here whatever queues up while a drain is pending goes with it: one task for a
     * delivery batch's frames, or for a send batch's answers. At 5,000 chat messages/s that took
     * WildFly from 154–159 to 145–146 µs per message and the send→push median from 41–56 to
     * 24–30 ms (docs/benchmarks.md).
     */
    static final class WriteQueue {

        /** Writes per drain, at most, before the IO thread gets back to its sockets (a drain is queued again for the rest). */
        static final int DRAIN_MAX = 1024;

        private final Executor ioThread;
        private final Queue<Runnable> queued = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean drainPending = new AtomicBoolean();

        WriteQueue(Executor ioThread) {
            this.ioThread = ioThread;
        }

        void submit(Runnable write) {
            queued.add(write);
            if (!drainPending.get() && drainPending.compareAndSet(false, true)) {
                execute();
            }
        }

        private void execute() {
            try {
                ioThread.execute(this::drain);
            } catch (RejectedExecutionException e) { // the IO thread is shutting down: nothing to write to any more
                drainPending.set(false);
                queued.clear();
            }
        }

        private void drain() {
            drainPending.set(false); // a write queued from here on asks for a drain of its own (it may find this one took it)
            Runnable write;
            for (int n = 0; n < DRAIN_MAX && (write = queued.poll()) != null; n++) {
                try {
                    write.run();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "a queued write failed", e);
                }
            }
            if (!queued.isEmpty() && drainPending.compareAndSet(false, true)) {
                execute();
            }
        }
    }

    public int count() {
        return open.size();
    }

    /** The ids of this node's connections now. */
    public List<String> ids() {
        return List.copyOf(open.keySet());
    }

    /** One of this node's connections, if it is still open. */
    public Optional<Outbound> outbound(String connectionId) {
        return Optional.ofNullable(open.get(connectionId));
    }

    /** A session of this node ended elsewhere (newer login, timeout, operator): tell the device and close. */
    void onSessionEnded(@Observes(during = TransactionPhase.AFTER_SUCCESS) SessionEnded ended) {
        meters.kick(ended.reason());
        Outbound outbound = open.remove(ended.connectionId());
        groups.offline(ended.connectionId());
        if (outbound == null || !outbound.session.isOpen()) {
            return;
        }
        outbound.send(Frames.kick(ended.reason()));
        // after the kick frame: frames keep their order; a drain's close says "come back" (1012), the others 1008
        outbound.close(SessionEnded.SERVER_SHUTDOWN.equals(ended.reason()) ? CloseReason.CloseCodes.SERVICE_RESTART
                : CloseReason.CloseCodes.VIOLATED_POLICY, ended.reason());
    }
}
