package io.roost.gateway;

import io.roost.platform.cluster.Draining;
import io.roost.platform.config.Durations;
import io.roost.presence.session.DeviceSessions;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Takes this node out of service ({@link Draining}): it takes no new device connections, and each
 * of its devices, at a random moment within the spread (so the other nodes are not hit by every
 * reconnect at once), starts no more requests, has those it began answered (sends and read
 * reports commit and answer as usual), and is then ended with {@code server_shutdown}: a kick and
 * a close 1012, after which it connects again through the load balancer to another node. What a
 * device never acknowledged takes the offline path as it closes; frames held for other nodes go
 * out while the broker takes them. Done when no connection is left; the operator (or
 * {@code bin/roost drain}) then stops the node.
 */
@ApplicationScoped
public class NodeDrain {

    private static final Logger LOG = Logger.getLogger(NodeDrain.class.getName());
    /** How long a connection's begun requests may take to be answered before its session ends anyway. */
    static final Duration ANSWER_WAIT = Duration.ofSeconds(10);
    static final Duration POLL = Duration.ofMillis(20);

    /** The drain's state on this node. */
    public record Status(boolean draining, Instant since, long spreadSeconds, int connections, int ended, int heldForwards,
                         boolean done) {
    }

    @Inject
    Draining draining;

    @Inject
    Connections connections;

    @Inject
    DeviceSessions sessions;

    @Inject
    Delivery delivery;

    @Resource
    ManagedScheduledExecutorService scheduler;

    @Inject
    @ConfigProperty(name = "roost.drain.spread", defaultValue = "10s")
    String spreadSetting;

    private volatile Duration spread = Duration.ZERO;
    private final AtomicInteger ended = new AtomicInteger();

    /** The default spread (ROOST_DRAIN_SPREAD). */
    public Duration defaultSpread() {
        return Durations.parse(spreadSetting);
    }

    /**
     * Starts draining with the devices' ends spread over {@code over}; a second call changes
     * nothing and answers the drain's status.
     */
    public Status start(Duration over) {
        if (draining.start()) {
            spread = over;
            List<String> ids = new ArrayList<>(connections.ids());
            Collections.shuffle(ids);
            LOG.info("draining: " + ids.size() + " device connections end over " + over.toSeconds() + " s");
            long spreadNanos = over.toNanos();
            for (String id : ids) {
                long at = spreadNanos == 0 ? 0 : ThreadLocalRandom.current().nextLong(spreadNanos);
                scheduler.schedule(() -> end(id, System.nanoTime() + ANSWER_WAIT.toNanos()), at, TimeUnit.NANOSECONDS);
            }
        }
        return status();
    }

    public Status status() {
        int left = connections.count();
        return new Status(draining.isDraining(), draining.since().orElse(null), spread.toSeconds(), left, ended.get(),
                delivery.heldCount(), draining.isDraining() && left == 0);
    }

    /** Ends one connection's session once what it began is answered (or the wait is over). */
    private void end(String connectionId, long giveUpAt) {
        connections.outbound(connectionId).ifPresent(out -> {
            out.end();
            if (out.unanswered() > 0 && System.nanoTime() - giveUpAt < 0) {
                scheduler.schedule(() -> end(connectionId, giveUpAt), POLL.toMillis(), TimeUnit.MILLISECONDS);
                return;
            }
            try {
                if (sessions.drained(connectionId).isPresent()) {
                    ended.incrementAndGet();
                } else {
                    out.close(jakarta.websocket.CloseReason.CloseCodes.SERVICE_RESTART, "server_shutdown"); // no session (not logged in)
                }
            } catch (RuntimeException e) {
                // the database is out of reach: close anyway; the session ends at its heartbeat timeout
                LOG.log(Level.WARNING, "draining connection " + connectionId + ": its session could not be ended now", e);
                out.send(Frames.kick(io.roost.presence.session.SessionEnded.SERVER_SHUTDOWN));
                out.close(jakarta.websocket.CloseReason.CloseCodes.SERVICE_RESTART, "server_shutdown");
            }
        });
    }
}
