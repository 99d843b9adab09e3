package io.roost.gateway;

import io.roost.presence.session.RouteTarget;
import io.roost.platform.config.NodeIdentity;
import io.roost.platform.delivery.Notice;
import io.roost.platform.delivery.Notices;
import io.roost.platform.ids.IdGenerator;
import io.roost.platform.messaging.MessagingException;
import io.roost.platform.messaging.RocketMqProducer;
import io.roost.presence.session.DeviceSessions;
import io.roost.platform.batch.GroupCommit;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.TransactionPhase;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Delivers {@link Notice}s after commit, off the caller's thread: the route table says which node
 * holds each of the users' connections; this node writes to its own, and sends one RocketMQ
 * message per other node ({@code roost-deliveries}, tagged with the node) for the rest.
 *
 * <p>Notices, and the chat pushes of each send transaction ({@link ChatDelivery}), queue for one
 * delivery thread, which takes whatever has queued up and looks the routes of all of its users up
 * at once: under chat load a node fires a push and several receipts per message, and a route query
 * (and a thread hand-off) per receipt or per send batch cost more than the message's own write.
 * One thread also keeps each connection's frames in the order they were fired.
 */
@ApplicationScoped
public class Delivery {

    public static final String TOPIC = "roost-deliveries";
    private static final Logger LOG = Logger.getLogger(Delivery.class.getName());
    static final int ROUTE_BATCH = 1000;
    /** Notices waiting for delivery, at most; beyond it a notice is dropped (devices catch up by syncing). */
    static final int CAPACITY = 100_000;
    /** Under a stream of notices, a route query at most this often. */
    static final Duration PACING = Duration.ofMillis(5);
    /** Frames for other nodes held while the broker refuses them, at most (a few hundred bytes each). */
    static final int HOLD_CAPACITY = 100_000;
    /** How long a frame for another node is held for the broker's return before it is given up. */
    static final Duration MAX_HOLD = Duration.ofMinutes(2);
    /** How often held frames are offered to the broker again. */
    static final Duration HOLD_RETRY = Duration.ofMillis(500);

    @Inject
    DeviceSessions sessions;

    @Inject
    Connections connections;

    @Inject
    NodeIdentity node;

    @Inject
    RocketMqProducer producer;

    @Inject
    IdGenerator ids;

    @Resource
    ManagedThreadFactory threads;

    @Resource
    ManagedScheduledExecutorService scheduler;

    @Inject
    GatewayMeters meters;

    private final HeldForwards held = new HeldForwards(HOLD_CAPACITY, MAX_HOLD.toNanos(), System::nanoTime,
            n -> meters.forwardsGivenUp(n));
    private final AtomicBoolean flushScheduled = new AtomicBoolean();

    /** Work for the delivery thread: the users whose routes it needs, and what to do once they are known. */
    interface Routed {

        Collection<Long> uids();

        void deliver(Map<Long, List<RouteTarget>> routesOf);

        /** The work reaches no device: the queue was full, or the routes could not be read. Nothing by default (devices sync). */
        default void undeliverable() {
        }
    }

    private final GroupCommit<Routed> queue = new GroupCommit<>("delivery", CAPACITY, () -> ROUTE_BATCH, PACING, this::deliverAll);

    @PostConstruct
    void start() {
        queue.start(threads, 1);
    }

    @PreDestroy
    void stop() {
        queue.stop();
        held.giveUpAll();
    }

    void onNotice(@Observes(during = TransactionPhase.AFTER_SUCCESS) Notice notice) {
        onNotices(new Notices(List.of(notice)));
    }

    void onNotices(@Observes(during = TransactionPhase.AFTER_SUCCESS) Notices notices) {
        if (notices.all().isEmpty()) {
            return;
        }
        if (!offer(new Routed() {
            @Override
            public Collection<Long> uids() {
                return notices.all().stream().flatMap(n -> n.uids().stream()).toList();
            }

            @Override
            public void deliver(Map<Long, List<RouteTarget>> routesOf) {
                notices.all().forEach(n -> Delivery.this.deliver(n, routesOf));
            }
        })) {
            LOG.log(Level.FINE, "delivery queue full; " + notices.all().size() + " notices dropped");
        }
    }

    /** Queues work for the delivery thread; false if the queue is full. */
    boolean offer(Routed work) {
        return queue.offer(work);
    }

    /** The work in order; the routes of all of its users looked up together, at most ROUTE_BATCH users a query. */
    void deliverAll(List<Routed> work) {
        Map<Long, List<RouteTarget>> routesOf = new HashMap<>();
        try {
            List<Long> uids = work.stream().flatMap(w -> w.uids().stream()).distinct().toList();
            for (int from = 0; from < uids.size(); from += ROUTE_BATCH) {
                for (RouteTarget r : sessions.targetsOf(uids.subList(from, Math.min(uids.size(), from + ROUTE_BATCH)))) {
                    routesOf.computeIfAbsent(r.uid(), u -> new ArrayList<>()).add(r);
                }
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "route lookup for " + work.size() + " deliveries failed; their devices read them when they sync"
                    + " (chat messages also take the offline path)", e);
            work.forEach(Delivery::undeliverable);
            return;
        }
        for (Routed w : work) {
            try {
                w.deliver(routesOf);
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "a delivery failed; its devices read it when they sync", e);
            }
        }
    }

    private static void undeliverable(Routed w) {
        try {
            w.undeliverable();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "an undeliverable delivery's fallback failed", e);
        }
    }

    private void deliver(Notice notice, Map<Long, List<RouteTarget>> routesOf) {
        String text = Frames.frame(notice.type(), notice.body());
        Map<Integer, List<String>> byNode = new TreeMap<>();
        for (long uid : notice.uids()) {
            for (RouteTarget r : routesOf.getOrDefault(uid, List.of())) {
                if (!notice.exceptConnections().contains(r.connectionId())) {
                    byNode.computeIfAbsent(r.nodeId(), n -> new ArrayList<>()).add(r.connectionId());
                }
            }
        }
        byNode.forEach((nodeId, connectionIds) -> {
            if (nodeId == node.nodeId()) {
                connectionIds.forEach(c -> connections.send(c, text));
            } else {
                forward(nodeId, connectionIds, text);
            }
        });
    }

    private void forward(int nodeId, List<String> connectionIds, String text) {
        forward(nodeId, new Forwarded(connectionIds, List.of(), text, null).toJson(), () -> { });
    }

    /**
     * A chat message for devices that another node holds, with their owners and its place
     * ({@link Forwarded}); {@code onGiveUp} runs if it never reaches the broker.
     */
    void forward(int nodeId, List<RouteTarget> routes, String text, Forwarded.Chat chat, Runnable onGiveUp) {
        forward(nodeId, new Forwarded(routes.stream().map(RouteTarget::connectionId).toList(),
                routes.stream().map(RouteTarget::uid).toList(), text, chat).toJson(), onGiveUp);
    }

    /**
     * A body for node {@code nodeId} (a {@link Forwarded} or a {@link GroupForward}) on the broker, in
     * the order forwarded: held while the broker refuses it ({@link HeldForwards}); {@code onGiveUp}
     * runs if it never gets there.
     */
    void forward(int nodeId, String body, Runnable onGiveUp) {
        if (held.sendOrHold(nodeId, body, onGiveUp, this::put)) {
            scheduleFlush();
        }
    }

    /** Frames held for other nodes until the broker takes them. */
    public int heldCount() {
        return held.size();
    }

    private boolean put(int nodeId, String body) {
        try {
            producer.send(ids.nextId(), TOPIC, "node-" + nodeId, null, body);
            return true;
        } catch (MessagingException e) {
            LOG.log(Level.FINE, "the broker did not take a frame for node " + nodeId + ": " + e.getMessage());
            return false;
        }
    }

    private void scheduleFlush() {
        if (flushScheduled.compareAndSet(false, true)) {
            try {
                scheduler.schedule(this::flush, HOLD_RETRY.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RuntimeException e) {
                flushScheduled.set(false);
                LOG.log(Level.WARNING, "could not schedule sending the held frames; the next forward tries again", e);
            }
        }
    }

    private void flush() {
        flushScheduled.set(false);
        try {
            if (held.flush(this::put)) {
                scheduleFlush();
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "sending the held frames failed; trying again", e);
            scheduleFlush();
        }
    }
}
