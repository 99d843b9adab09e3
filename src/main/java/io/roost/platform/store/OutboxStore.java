package io.roost.platform.store;

import io.roost.platform.messaging.MessagingException;
import io.roost.platform.messaging.RocketMqProducer;
import io.roost.platform.outbox.OutboxPublisher;
import io.roost.platform.problem.Unreachable;
import io.roost.platform.retry.Backoff;
import jakarta.annotation.Resource;
import jakarta.ejb.EJB;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The outbox table: write messages in the caller's transaction (for {@code OutboxPublisher});
 * claim due rows, send them, delete what was sent, back off what failed (for {@code OutboxRelay}).
 */
@Stateless
public class OutboxStore {

    private static final Logger LOG = Logger.getLogger(OutboxStore.class.getName());

    /**
     * What one batch did: how many rows went out; whether a send failed; whether it failed because
     * the broker is out of reach ({@link Unreachable}), which says nothing about the rows themselves.
     */
    public record BatchResult(int sent, boolean failed, boolean brokerUnreachable) {
    }

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    @EJB
    RocketMqProducer producer;

    /** The messages as rows with these ids, in one statement, in the caller's transaction. */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void insertAll(List<Long> ids, List<OutboxPublisher.Message> messages) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("""
                INSERT INTO outbox (id, topic, tag, message_key, body)
                SELECT * FROM unnest(?::int8[], ?::varchar[], ?::varchar[], ?::varchar[], ?::text[])""")) {
            SqlArrays.bind(c, ps, ids.toArray(Long[]::new), column(messages, OutboxPublisher.Message::topic),
                    column(messages, OutboxPublisher.Message::tag), column(messages, OutboxPublisher.Message::key),
                    column(messages, OutboxPublisher.Message::body));
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("outbox write failed: " + e.getMessage(), e);
        }
    }

    /**
     * One batch in one transaction. Rows go in id order; a run of consecutive rows of one topic
     * goes to the broker as one request (a login burst is hundreds of sends a second otherwise).
     * The batch stops at the first failure, so a key's messages do not overtake each other when
     * the broker is flaky. The rows of a request the broker refused back off together
     * ({@link Backoff}); rows that failed because the broker is out of reach stay due: nothing is
     * wrong with them, and the relay (not each row) decides when to try again, so the backlog goes out
     * as soon as the broker is back instead of when each row's backoff, grown through the outage, ends.
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
        boolean unreachable = false;
        for (int from = 0; from < rows.size() && !failed; ) {
            String topic = (String) rows.get(from)[1];
            List<RocketMqProducer.Outgoing> run = new ArrayList<>();
            int bytes = 0;
            int to = from;
            for (; to < rows.size() && topic.equals(rows.get(to)[1]); to++) {
                Object[] row = rows.get(to);
                String body = (String) row[4];
                bytes += body.length() * 3; // UTF-8 takes at most 3 bytes per char
                if (!run.isEmpty() && bytes > RocketMqProducer.MAX_BATCH_BYTES) {
                    break;
                }
                run.add(new RocketMqProducer.Outgoing(((Number) row[0]).longValue(), (String) row[2], (String) row[3], body));
            }
            try {
                producer.sendBatch(topic, run);
                run.forEach(m -> sent.add(m.id()));
            } catch (MessagingException e) {
                int attempts = ((Number) rows.get(from)[5]).intValue() + 1;
                unreachable = Unreachable.dependencyOf(e).isPresent();
                long delay = unreachable ? 0 : Backoff.seconds(attempts);
                LOG.warning(() -> run.size() + " outbox messages from " + run.get(0).id() + " not sent (attempt " + attempts + "): "
                        + e.getMessage());
                em.createNativeQuery("""
                                UPDATE outbox SET attempts = attempts + 1, last_error = ?2,
                                    next_attempt_at = now() + make_interval(secs => ?3)
                                WHERE id = ANY(CAST(?1 AS bigint[]))""")
                        .setParameter(1, SqlArrays.bigints(run.stream().map(RocketMqProducer.Outgoing::id).toList()))
                        .setParameter(2, truncate(e.getMessage(), 1000))
                        .setParameter(3, (double) delay)
                        .executeUpdate();
                failed = true;
            }
            from = to;
        }
        if (!sent.isEmpty()) {
            em.createNativeQuery("DELETE FROM outbox WHERE id = ANY(CAST(?1 AS bigint[]))")
                    .setParameter(1, SqlArrays.bigints(sent))
                    .executeUpdate();
        }
        return new BatchResult(sent.size(), failed, unreachable);
    }

    /** Rows waiting to be sent. */
    public long backlog() {
        return ((Number) em.createNativeQuery("SELECT count(*) FROM outbox").getSingleResult()).longValue();
    }

    private static String[] column(List<OutboxPublisher.Message> messages, Function<OutboxPublisher.Message, String> field) {
        return messages.stream().map(field).toArray(String[]::new);
    }

    private static String truncate(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max);
    }
}
