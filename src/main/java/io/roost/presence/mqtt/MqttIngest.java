package io.roost.presence.mqtt;

import io.roost.presence.store.MqttStore;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one path by which MQTT status notifications are applied, whether they come from RocketMQ
 * or from the HTTP bridge endpoint. Returns only after the batch is committed.
 *
 * <p>The broker hands each consumer thread at most one pull's worth of messages (32 by default),
 * and a transaction's cost is mostly per statement, not per row. So consumer threads that arrive
 * while a transaction is running queue their batches, and the next free thread applies all that
 * are queued, up to {@code ROOST_MQTT_BATCH_SIZE} messages, in one transaction (group commit).
 * Each caller still returns only after the transaction holding its messages committed; if a
 * combined transaction fails, its parts are retried one by one so a failing batch fails alone.
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

    private final AtomicLong applied = new AtomicLong();
    private final AtomicLong deadLettered = new AtomicLong();

    /** One caller's parsed batch, waiting to be applied. Guarded by {@code queue}. */
    private static final class Pending {
        final List<MqttStatusEvent> events;
        final List<MqttStore.DeadLetter> dead;
        boolean done;
        RuntimeException failure;

        Pending(List<MqttStatusEvent> events, List<MqttStore.DeadLetter> dead) {
            this.events = events;
            this.dead = dead;
        }

        int size() {
            return events.size() + dead.size();
        }
    }

    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    private int running;

    /** Applies what parses; keeps what never can in the dead-letter table (acknowledged, not retried). */
    public void ingestMessages(List<Raw> messages) {
        List<MqttStatusEvent> events = new ArrayList<>(messages.size());
        List<MqttStore.DeadLetter> dead = new ArrayList<>();
        for (Raw m : messages) {
            try {
                events.add(MqttStatusEvent.parse(m.body(), m.tag()));
            } catch (MqttStatusEvent.Invalid e) {
                dead.add(new MqttStore.DeadLetter(m.messageId(), m.tag(), m.body(), e.getMessage()));
            }
        }
        Pending mine = new Pending(events, dead);
        synchronized (queue) {
            queue.add(mine);
        }
        while (true) {
            List<Pending> round = new ArrayList<>();
            synchronized (queue) {
                // Ours is queued or in another thread's round: wait until it is done, or until a
                // slot is free and something is queued, then take a round (ours may be in it).
                while (!mine.done && (running >= settings.transactions() || queue.isEmpty())) {
                    awaitQuietly();
                }
                if (mine.done) {
                    if (mine.failure != null) {
                        throw mine.failure;
                    }
                    return;
                }
                int budget = settings.batchSize();
                while (!queue.isEmpty() && (round.isEmpty() || queue.peek().size() <= budget)) {
                    Pending p = queue.poll();
                    budget -= p.size();
                    round.add(p);
                }
                running++;
            }
            try {
                apply(round);
            } finally {
                synchronized (queue) {
                    running--;
                    queue.notifyAll();
                }
            }
        }
    }

    /** Applies a round in one transaction; if that fails, each part alone. Marks every part done. */
    private void apply(List<Pending> round) {
        List<MqttStatusEvent> events = new ArrayList<>();
        List<MqttStore.DeadLetter> dead = new ArrayList<>();
        round.forEach(p -> {
            events.addAll(p.events);
            dead.addAll(p.dead);
        });
        try {
            store.apply(events, dead);
            count(events.size(), dead.size());
            finish(round, null);
        } catch (RuntimeException combined) {
            if (round.size() == 1) {
                finish(round, combined);
                return;
            }
            for (Pending p : round) {
                try {
                    store.apply(p.events, p.dead);
                    count(p.events.size(), p.dead.size());
                    finish(List.of(p), null);
                } catch (RuntimeException alone) {
                    finish(List.of(p), alone);
                }
            }
        }
    }

    private void finish(List<Pending> parts, RuntimeException failure) {
        synchronized (queue) {
            for (Pending p : parts) {
                p.failure = failure;
                p.done = true;
            }
            queue.notifyAll();
        }
    }

    private void count(int events, int dead) {
        applied.addAndGet(events);
        deadLettered.addAndGet(dead);
    }

    private void awaitQuietly() {
        try {
            queue.wait();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting to apply MQTT notifications", e);
        }
    }

    /** Applies events already validated (the HTTP path answers 400 for invalid ones instead). */
    public void ingest(List<MqttStatusEvent> events) {
        store.apply(events, List.of());
        applied.addAndGet(events.size());
    }

    public Stats stats() {
        return new Stats(applied.get(), deadLettered.get());
    }
}
