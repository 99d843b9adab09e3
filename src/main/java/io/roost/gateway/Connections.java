package io.roost.gateway;

import io.roost.presence.session.SessionEnded;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import jakarta.websocket.CloseReason;
import jakarta.websocket.Session;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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

    public void add(String connectionId, Outbound outbound) {
        open.put(connectionId, outbound);
    }

    public void remove(String connectionId) {
        open.remove(connectionId);
    }

    /** Whether this node holds the connection (logged in, or logging in). */
    public boolean has(String connectionId) {
        return open.containsKey(connectionId);
    }

    /** Writes a frame to one of this node's connections, if it is still open. */
    public void send(String connectionId, String text) {
        Outbound outbound = open.get(connectionId);
        if (outbound != null) {
            outbound.send(text);
        }
    }

    /**
     * One connection's way out: its session, and how many of its frames are queued and not yet
     * written. (The count lives here, not in the session's user properties: that map is
     * synchronized, and a lookup per frame cost more than the count.)
     */
    public static final class Outbound {

        private final Session session;
        private final AtomicInteger unwritten = new AtomicInteger();

        public Outbound(Session session) {
            this.session = session;
        }

        /**
         * Queues a frame on the socket and returns: Undertow writes it from the connection's IO
         * thread. (A blocking write per frame cost the caller a hand-off to that thread and a
         * wake-up back, four or five times per chat message.) Frames reach a connection from its
         * own message thread and from deliveries at once; the session's lock keeps each caller's
         * frames in call order. A device that reads slower than it is sent to, with
         * {@link #MAX_UNWRITTEN} frames queued and not yet written, is closed with 1008
         * {@code slow-consumer}: it reconnects and catches up rather than hold the node's memory.
         */
        public void send(String text) {
            synchronized (session) {
                if (!session.isOpen()) {
                    return;
                }
                if (unwritten.get() < MAX_UNWRITTEN) {
                    unwritten.incrementAndGet();
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
                    return;
                }
            }
            // outside the lock: the close runs the endpoint's close handler on this thread
            LOG.log(Level.INFO, "closing connection {0}: {1} frames wait to be written to it", new Object[] {session.getId(), MAX_UNWRITTEN});
            close(CloseReason.CloseCodes.VIOLATED_POLICY, SLOW_CONSUMER);
        }

        /** Closes the connection (its close frame follows the frames queued before it). */
        public void close(CloseReason.CloseCode code, String reason) {
            try {
                session.close(new CloseReason(code, reason));
            } catch (IOException | IllegalStateException e) {
                LOG.log(Level.FINE, "close failed", e);
            }
        }
    }

    public int count() {
        return open.size();
    }

    /** A session of this node ended elsewhere (newer login, timeout, operator): tell the device and close. */
    void onSessionEnded(@Observes(during = TransactionPhase.AFTER_SUCCESS) SessionEnded ended) {
        Outbound outbound = open.remove(ended.connectionId());
        if (outbound == null || !outbound.session.isOpen()) {
            return;
        }
        outbound.send(Frames.kick(ended.reason()));
        outbound.close(CloseReason.CloseCodes.VIOLATED_POLICY, ended.reason()); // after the kick frame: frames keep their order
    }
}
