package io.roost.platform.cluster;

import jakarta.enterprise.context.ApplicationScoped;
import java.time.Instant;
import java.util.Optional;

/**
 * Whether this node is being taken out of service. Once draining, it takes no new device
 * connections ({@code /api/health/serving} answers 503, so the load balancer stops sending them),
 * its devices are asked to reconnect elsewhere, and its timers claim no more cluster-wide work;
 * then it is stopped. A node never stops draining: it is started again, not resumed.
 */
@ApplicationScoped
public class Draining {

    private volatile Instant since;

    /** Starts draining; false if it had started already. */
    public synchronized boolean start() {
        if (since != null) {
            return false;
        }
        since = Instant.now();
        return true;
    }

    public boolean isDraining() {
        return since != null;
    }

    public Optional<Instant> since() {
        return Optional.ofNullable(since);
    }
}
