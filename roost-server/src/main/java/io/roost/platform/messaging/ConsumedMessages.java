package io.roost.platform.messaging;

import io.roost.platform.store.ConsumedMessageStore;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

/**
 * Exactly-once effects from at-least-once delivery: a consumer calls {@link #firstDelivery} in
 * the transaction that applies the message; a redelivered message finds its row and is skipped,
 * and a rolled-back transaction leaves no row, so the redelivery is applied.
 */
@ApplicationScoped
public class ConsumedMessages {

    @EJB
    ConsumedMessageStore store;

    @Transactional(Transactional.TxType.MANDATORY)
    public boolean firstDelivery(String consumerGroup, String messageId) {
        return store.insert(consumerGroup, messageId);
    }

    /** Forgets old deliveries in bounded batches (RocketMQ does not redeliver after days). */
    @Transactional
    public int purgeOlderThanDays(int days, int batch) {
        return store.purgeOlderThanDays(days, batch);
    }
}
