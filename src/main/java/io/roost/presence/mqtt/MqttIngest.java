package io.roost.presence.mqtt;

import io.roost.presence.store.MqttStore;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one path by which MQTT status notifications are applied, whether they come from RocketMQ
 * or from the HTTP bridge endpoint. Returns only after the batch is committed.
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

    private final AtomicLong applied = new AtomicLong();
    private final AtomicLong deadLettered = new AtomicLong();

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
        store.apply(events, dead);
        applied.addAndGet(events.size());
        deadLettered.addAndGet(dead.size());
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
