package io.roost.platform.messaging;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;

/**
 * Exactly-once effects from at-least-once delivery: a consumer calls {@link #firstDelivery} in
 * the transaction that applies the message; a redelivered message finds its row and is skipped,
 * and a rolled-back transaction leaves no row, so the redelivery is applied.
 */
@ApplicationScoped
public class ConsumedMessages {

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    @Transactional(Transactional.TxType.MANDATORY)
    public boolean firstDelivery(String consumerGroup, String messageId) {
        return em.createNativeQuery("""
                        INSERT INTO consumed_message (consumer_group, message_id) VALUES (?1, ?2)
                        ON CONFLICT DO NOTHING""")
                .setParameter(1, consumerGroup)
                .setParameter(2, messageId)
                .executeUpdate() == 1;
    }

    /** Forgets old deliveries in bounded batches (RocketMQ does not redeliver after days). */
    @Transactional
    public int purgeOlderThanDays(int days, int batch) {
        return em.createNativeQuery("""
                        DELETE FROM consumed_message WHERE ctid IN (
                            SELECT ctid FROM consumed_message
                            WHERE consumed_at < now() - make_interval(days => ?1) LIMIT ?2)""")
                .setParameter(1, days)
                .setParameter(2, batch)
                .executeUpdate();
    }
}
