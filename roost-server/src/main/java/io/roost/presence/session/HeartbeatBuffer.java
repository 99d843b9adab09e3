package io.roost.presence.session;

import io.roost.presence.store.RouteStore;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Heartbeats without a database write each: a heartbeat only marks its connection here, and every
 * 5 s ({@link HeartbeatFlush}) one UPDATE stamps all marked routes (50,000 devices at 30 s = one
 * statement of ~8,000 rows per flush, not 1,700 commits a second). The timeout is minutes, so 5 s
 * of delay is harmless. A plain CDI bean, not an EJB: a mark is a set insertion, and an EJB call
 * per heartbeat (interceptors, a JTA transaction) cost many times that.
 */
@ApplicationScoped
public class HeartbeatBuffer {

    private static final Logger LOG = Logger.getLogger(HeartbeatBuffer.class.getName());

    @EJB
    RouteStore routes;

    private final Set<String> marked = ConcurrentHashMap.newKeySet();

    public void mark(String connectionId) {
        marked.add(connectionId);
    }

    /** Stamps every route marked since the last flush; returns how many rows it touched. */
    public int flush() {
        // Taken out one by one: a mark that races this is either taken now or stays for the next flush.
        List<String> ids = new ArrayList<>();
        for (Iterator<String> it = marked.iterator(); it.hasNext(); ) {
            ids.add(it.next());
            it.remove();
        }
        if (ids.isEmpty()) {
            return 0;
        }
        try {
            return routes.touch(ids);
        } catch (RuntimeException e) {
            marked.addAll(ids); // try again with the next flush
            LOG.log(Level.WARNING, "heartbeat flush of " + ids.size() + " failed", e);
            return 0;
        }
    }
}
