package io.roost.presence.mqtt;

import io.roost.presence.PresenceMeters;
import io.roost.presence.store.MqttStore;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one path by which MQTT status notifications are applied, whether they come from RocketMQ
 * or from the HTTP bridge endpoint. Returns only after the batch is committed.
 *
 * <p>The broker hands each consumer thread at most one pull's worth of messages, and a
 * transaction's cost is mostly per statement, not per row. So consumer threads that arrive while
 * a transaction is running queue their batches, and the next free thread applies all that are
 * queued, up to {@code ROOST_MQTT_BATCH_SIZE} messages, in one transaction (group commit).
 *
 * <p>Client ids are split over {@code ROOST_MQTT_TRANSACTIONS} lanes by hash, and each lane runs
 * one transaction at a time. Two transactions running at once therefore never touch the same
 * client row: without lanes the second one waited on the first one's client row locks most of
 * the time (measured), so they ran one after the other in effect.
 *
 * <p>Each caller still returns only after every transaction holding its messages committed; if a
 * combined transaction fails, its parts are retried one by one so a failing batch fails alone
 * (and RocketMQ redelivers that caller's whole batch, which re-applies its committed parts as no-ops).
 */
@ApplicationScoped
public class MqttIngest {

    /** A notification as received: the broker's message id, its tag, its body. */
    public record Raw(String messageId, String tag, String body) {
    }

    public record Stats(long applied, long deadLettered) {
    }

    @EJB
    MqttStore store;

    @Inject
    MqttSettings settings;

    @Inject
    PresenceMeters meters;

    private final AtomicLong applied = new AtomicLong();
    private final AtomicLong deadLettered = new AtomicLong();

    /** One caller's share of one lane, waiting to be applied. Guarded by {@code lock}. */
    private static final class Part {
        final List<MqttStatusEvent> events = new ArrayList<>();
        final List<MqttStore.DeadLetter> dead = new ArrayList<>();
        boolean done;
        RuntimeException failure;

        int size() {
            return events.size() + dead.size();
        }
    }

    /** A lane's queue, and whether one of its transactions is running. Guarded by {@code lock}. */
    private static final class Lane {
        final ArrayDeque<Part> queue = new ArrayDeque<>();
        boolean running;
    }

    private final Object lock = new Object();
    private Lane[] lanes;

    @PostConstruct
    void init() {
        lanes = new Lane[settings.transactions()];
        Arrays.setAll(lanes, i -> new Lane());
    }

    /** Applies what parses; keeps what never can in the dead-letter table (acknowledged, not retried). */
    public void ingestMessages(List<Raw> messages) {
        Part[] mine = new Part[lanes.length];
        Arrays.setAll(mine, i -> new Part());
        for (Raw m : messages) {
            try {
                MqttStatusEvent e = MqttStatusEvent.parse(m.body(), m.tag());
                mine[Math.floorMod(e.clientId().hashCode(), lanes.length)].events.add(e);
            } catch (MqttStatusEvent.Invalid e) {
                mine[0].dead.add(new MqttStore.DeadLetter(m.messageId(), m.tag(), m.body(), e.getMessage()));
            }
        }
        synchronized (lock) {
            for (int i = 0; i < lanes.length; i++) {
                if (mine[i].size() > 0) {
                    lanes[i].queue.add(mine[i]);
                } else {
                    mine[i].done = true;
                }
            }
        }
        while (true) {
            Lane lane = null;
            List<Part> round = new ArrayList<>();
            synchronized (lock) {
                // Wait until all of ours are done, or until some lane is free and has work; then
                // take a round from it (ours may be in it, or help with others' meanwhile).
                while (!allDone(mine) && (lane = freeLaneWithWork()) == null) {
                    awaitQuietly();
                }
                if (allDone(mine)) {
                    for (Part p : mine) {
                        if (p.failure != null) {
                            throw p.failure;
                        }
                    }
                    return;
                }
                int budget = settings.batchSize();
                while (!lane.queue.isEmpty() && (round.isEmpty() || lane.queue.peek().size() <= budget)) {
                    Part p = lane.queue.poll();
                    budget -= p.size();
                    round.add(p);
                }
                lane.running = true;
            }
            try {
                apply(round);
            } finally {
                synchronized (lock) {
                    lane.running = false;
                    lock.notifyAll();
                }
            }
        }
    }

    private static boolean allDone(Part[] parts) {
        for (Part p : parts) {
            if (!p.done) {
                return false;
            }
        }
        return true;
    }

    private Lane freeLaneWithWork() {
        for (Lane l : lanes) {
            if (!l.running && !l.queue.isEmpty()) {
                return l;
            }
        }
        return null;
    }

    /** Applies a round in one transaction; if that fails, each part alone. Marks every part done. */
    private void apply(List<Part> round) {
        List<MqttStatusEvent> events = new ArrayList<>();
        List<MqttStore.DeadLetter> dead = new ArrayList<>();
        round.forEach(p -> {
            events.addAll(p.events);
            dead.addAll(p.dead);
        });
        try {
            count(events.size(), dead.size(), store.apply(events, dead));
            finish(round, null);
        } catch (RuntimeException combined) {
            if (round.size() == 1) {
                finish(round, combined);
                return;
            }
            for (Part p : round) {
                try {
                    count(p.events.size(), p.dead.size(), store.apply(p.events, p.dead));
                    finish(List.of(p), null);
                } catch (RuntimeException alone) {
                    finish(List.of(p), alone);
                }
            }
        }
    }

    private void finish(List<Part> parts, RuntimeException failure) {
        synchronized (lock) {
            for (Part p : parts) {
                p.failure = failure;
                p.done = true;
            }
            lock.notifyAll();
        }
    }

    private void count(int events, int dead, MqttStore.Applied outcome) {
        applied.addAndGet(events);
        deadLettered.addAndGet(dead);
        count(meters, events, outcome);
    }

    /** The outcomes of {@code events} notifications applied: new facts applied or stale, the rest duplicates. */
    static void count(PresenceMeters meters, int events, MqttStore.Applied outcome) {
        meters.mqtt(PresenceMeters.Outcome.APPLIED, outcome.newFacts() - outcome.stale());
        meters.mqtt(PresenceMeters.Outcome.STALE, outcome.stale());
        meters.mqtt(PresenceMeters.Outcome.DUPLICATE, events - outcome.newFacts());
    }

    private void awaitQuietly() {
        try {
            lock.wait();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting to apply MQTT notifications", e);
        }
    }

    /** Applies events already validated (the HTTP path answers 400 for invalid ones instead). */
    public void ingest(List<MqttStatusEvent> events) {
        count(events.size(), 0, store.apply(events, List.of()));
    }

    public Stats stats() {
        return new Stats(applied.get(), deadLettered.get());
    }
}
