package io.roost.platform.outbox;

import io.roost.platform.ids.IdGenerator;
import io.roost.platform.store.OutboxStore;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.util.List;

/**
 * How a module publishes to RocketMQ: the message becomes an outbox row in the caller's own
 * transaction. It is sent only if that transaction commits (a rollback publishes nothing), and a
 * broker outage only delays it. Right after commit the relay is nudged, so latency stays low.
 */
@ApplicationScoped
public class OutboxPublisher {

    /** A message for RocketMQ: topic, tag (may be null), business key (may be null), body. */
    public record Message(String topic, String tag, String key, String body) {

        public Message {
            if (topic == null || topic.isBlank() || body == null) {
                throw new IllegalArgumentException("topic and body are required");
            }
        }
    }

    @EJB
    OutboxStore store;

    @Inject
    IdGenerator ids;

    @Inject
    Event<OutboxWritten> written;

    /** Returns the message id (consumers see it as {@code MessageIds.of(message)}). */
    @Transactional(Transactional.TxType.MANDATORY)
    public long publish(String topic, String tag, String key, String body) {
        return publishAll(List.of(new Message(topic, tag, key, body))).get(0);
    }

    /** Many messages, one statement (a batch of device logins writes one login event each); their ids in order. */
    @Transactional(Transactional.TxType.MANDATORY)
    public List<Long> publishAll(List<Message> messages) {
        if (messages.isEmpty()) {
            return List.of();
        }
        List<Long> written = messages.stream().map(m -> ids.nextId()).toList();
        store.insertAll(written, messages);
        this.written.fire(new OutboxWritten(written.get(0))); // one nudge wakes the relay for all of them
        return written;
    }
}
