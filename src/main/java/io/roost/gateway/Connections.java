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
import java.util.logging.Level;
import java.util.logging.Logger;

/** This node's live WebSocket connections by connection id, and the kick of one of them. */
@ApplicationScoped
public class Connections {

    private static final Logger LOG = Logger.getLogger(Connections.class.getName());

    private final Map<String, Session> open = new ConcurrentHashMap<>();

    public void add(String connectionId, Session session) {
        open.put(connectionId, session);
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
        Session session = open.get(connectionId);
        if (session != null) {
            send(session, text);
        }
    }

    /**
     * Frames reach a connection from its own message thread and from deliveries at once; a
     * WebSocket allows one blocking write at a time, so writes to one session take turns.
     */
    public static void send(Session session, String text) {
        synchronized (session) {
            try {
                if (session.isOpen()) {
                    session.getBasicRemote().sendText(text);
                }
            } catch (IOException | IllegalStateException e) {
                LOG.log(Level.FINE, "send failed", e);
            }
        }
    }

    public int count() {
        return open.size();
    }

    /** A session of this node ended elsewhere (newer login, timeout, operator): tell the device and close. */
    void onSessionEnded(@Observes(during = TransactionPhase.AFTER_SUCCESS) SessionEnded ended) {
        Session session = open.remove(ended.connectionId());
        if (session == null || !session.isOpen()) {
            return;
        }
        send(session, Frames.kick(ended.reason()));
        try {
            session.close(new CloseReason(CloseReason.CloseCodes.VIOLATED_POLICY, ended.reason()));
        } catch (IOException | IllegalStateException e) {
            LOG.log(Level.FINE, "kick of " + ended.connectionId() + " could not be delivered", e);
        }
    }
}
