package io.roost.platform.outbox;

import io.roost.platform.ids.IdGenerator;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;

/**
 * How a module publishes to RocketMQ: the message becomes an outbox row in the caller's own
 * transaction. It is sent only if that transaction commits (a rollback publishes nothing), and a
 * broker outage only delays it. Right after commit the relay is nudged, so latency stays low.
 */
@ApplicationScoped
public class OutboxPublisher {

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    @Inject
    IdGenerator ids;

    @Inject
    Event<OutboxWritten> written;

    /** Returns the message id (consumers see it as {@code MessageIds.of(message)}). */
    @Transactional(Transactional.TxType.MANDATORY)
    public long publish(String topic, String tag, String key, String body) {
        if (topic == null || topic.isBlank() || body == null) {
            throw new IllegalArgumentException("topic and body are required");
        }
        long id = ids.nextId();
        em.createNativeQuery("INSERT INTO outbox (id, topic, tag, message_key, body) VALUES (?1, ?2, ?3, ?4, ?5)")
                .setParameter(1, id)
                .setParameter(2, topic)
                .setParameter(3, tag)
                .setParameter(4, key)
                .setParameter(5, body)
                .executeUpdate();
        written.fire(new OutboxWritten(id));
        return id;
    }
}
