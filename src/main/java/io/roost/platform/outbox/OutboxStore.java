package io.roost.platform.outbox;

import io.roost.platform.messaging.MessagingException;
import io.roost.platform.messaging.RocketMqProducer;
import io.roost.platform.retry.Backoff;
import jakarta.ejb.EJB;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/** The outbox table: claim due rows, send them, delete what was sent, back off what failed. */
@Stateless
public class OutboxStore {

    private static final Logger LOG = Logger.getLogger(OutboxStore.class.getName());

    public record BatchResult(int sent, boolean failed) {
    }

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    @EJB
    RocketMqProducer producer;

    /**
     * One batch in one transaction. Rows are sent in id order and the batch stops at the first
     * failure, so a key's messages do not overtake each other when the broker is flaky.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public BatchResult relayBatch(int limit) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT id, topic, tag, message_key, body, attempts FROM outbox
                        WHERE next_attempt_at <= now()
                        ORDER BY id LIMIT ?1 FOR UPDATE SKIP LOCKED""")
                .setParameter(1, limit)
                .getResultList();
        List<Long> sent = new ArrayList<>(rows.size());
        boolean failed = false;
        for (Object[] row : rows) {
            long id = ((Number) row[0]).longValue();
            try {
                producer.send(id, (String) row[1], (String) row[2], (String) row[3], (String) row[4]);
                sent.add(id);
            } catch (MessagingException e) {
                int attempts = ((Number) row[5]).intValue() + 1;
                LOG.warning(() -> "Outbox message " + id + " not sent (attempt " + attempts + "): " + e.getMessage());
                em.createNativeQuery("""
                                UPDATE outbox SET attempts = ?2, last_error = ?3,
                                    next_attempt_at = now() + make_interval(secs => ?4)
                                WHERE id = ?1""")
                        .setParameter(1, id)
                        .setParameter(2, attempts)
                        .setParameter(3, truncate(e.getMessage(), 1000))
                        .setParameter(4, (double) Backoff.seconds(attempts))
                        .executeUpdate();
                failed = true;
                break;
            }
        }
        if (!sent.isEmpty()) {
            em.createNativeQuery("DELETE FROM outbox WHERE id IN (?1)")
                    .setParameter(1, sent)
                    .executeUpdate();
        }
        return new BatchResult(sent.size(), failed);
    }

    /** Rows waiting to be sent (the admin overview and health show it). */
    public long backlog() {
        return ((Number) em.createNativeQuery("SELECT count(*) FROM outbox").getSingleResult()).longValue();
    }

    private static String truncate(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max);
    }
}
