package io.roost.platform.store;

import io.roost.platform.metrics.StoreTimed;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/** The consumed_message rows: a message id per consumer group, for {@code ConsumedMessages}. */
@StoreTimed
@Stateless
public class ConsumedMessageStore {

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    /** True if the row is new; in the consuming transaction, so a rollback takes it back. */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public boolean insert(String consumerGroup, String messageId) {
        return em.createNativeQuery("""
                        INSERT INTO consumed_message (consumer_group, message_id) VALUES (?1, ?2)
                        ON CONFLICT DO NOTHING""")
                .setParameter(1, consumerGroup)
                .setParameter(2, messageId)
                .executeUpdate() == 1;
    }

    /** Deletes at most {@code batch} rows consumed more than {@code days} ago. */
    @TransactionAttribute(TransactionAttributeType.REQUIRED)
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
