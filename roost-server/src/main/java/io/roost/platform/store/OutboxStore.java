package io.roost.platform.store;

import io.roost.platform.metrics.StoreTimed;
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
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The outbox table: write messages in the caller's transaction (for {@code OutboxPublisher});
 * claim and delete due rows, send them, put back what failed (for {@code OutboxRelay}).
 */
@StoreTimed
@Stateless
public class OutboxStore {

    private static final Logger LOG = Logger.getLogger(OutboxStore.class.getName());

    /**
     * What one batch did: how many rows went out; the highest id it claimed (0 if none); whether a
     * send failed (then the rows from there on are back in the outbox); whether it failed because
     * the broker is out of reach ({@link Unreachable}), which says nothing about the rows themselves.
     */
    public record BatchResult(int sent, long lastId, boolean failed, boolean brokerUnreachable) {
    }

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    @EJB
    RocketMqProducer producer;

    /** The messages as rows with these ids, in one statement, in the caller's transaction. */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void insertAll(List<Long> ids, List<OutboxPublisher.Message> messages) {
        Jdbc.update(dataSource, failed("write"), """
                INSERT INTO outbox (id, topic, tag, message_key, body)
                SELECT * FROM unnest(?::int8[], ?::varchar[], ?::varchar[], ?::varchar[], ?::text[])""",
                ids.toArray(Long[]::new), column(messages, OutboxPublisher.Message::topic), column(messages, OutboxPublisher.Message::tag),
                column(messages, OutboxPublisher.Message::key), column(messages, OutboxPublisher.Message::body));
    }

    /**
     * One batch in one transaction. Rows go in id order; a run of consecutive rows of one topic
     * goes to the broker as one request (a login burst is hundreds of sends a second otherwise).
     * The batch stops at the first failure, so a key's messages do not overtake each other when
     * the broker is flaky. The rows of a request the broker refused back off together
     * ({@link Backoff}); rows that failed because the broker is out of reach stay due: nothing is
     * wrong with them, and the relay (not each row) decides when to try again, so the backlog goes out
     * as soon as the broker is back instead of when each row's backoff, grown through the outage, ends.
     * It claims the due rows from id {@code fromId} on: the relay starts above the rows it deleted
     * moments ago, whose index entries stay in the table until vacuum, and a scan from the lowest
     * id walked hundreds of thousands of them per claim under chat load.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public BatchResult relayBatch(int limit, long fromId) {
        // Claimed and deleted in one statement, each row by its ctid: a second statement deleting the
        // sent ids cost more than the rest of the relay under chat load (it searched a table that
        // churns thousands of rows a second). What a failed send leaves is put back, in this transaction.
        List<Row> rows = Jdbc.query(dataSource, failed("claim"), """
                DELETE FROM outbox WHERE ctid = ANY(ARRAY(
                    SELECT ctid FROM outbox WHERE id >= ? AND next_attempt_at <= now() ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED))
                RETURNING id, topic, tag, message_key, body, attempts, last_error, created_at""",
                rs -> new Row(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5), rs.getInt(6),
                        rs.getString(7), rs.getObject(8, OffsetDateTime.class)), fromId, limit);
        rows.sort(Comparator.comparingLong(Row::id)); // RETURNING has no order
        long lastId = rows.isEmpty() ? 0 : rows.get(rows.size() - 1).id();
        int sent = 0;
        for (int from = 0; from < rows.size(); ) {
            String topic = rows.get(from).topic();
            List<RocketMqProducer.Outgoing> run = new ArrayList<>();
            int bytes = 0;
            int to = from;
            for (; to < rows.size() && topic.equals(rows.get(to).topic()); to++) {
                Row row = rows.get(to);
                bytes += row.body().length() * 3; // UTF-8 takes at most 3 bytes per char
                if (!run.isEmpty() && bytes > RocketMqProducer.MAX_BATCH_BYTES) {
                    break;
                }
                run.add(new RocketMqProducer.Outgoing(row.id(), row.tag(), row.key(), row.body()));
            }
            try {
                producer.sendBatch(topic, run);
                sent += run.size();
            } catch (MessagingException e) {
                int attempts = rows.get(from).attempts() + 1;
                boolean unreachable = Unreachable.dependencyOf(e).isPresent();
                long delay = unreachable ? 0 : Backoff.seconds(attempts);
                LOG.warning(() -> run.size() + " outbox messages from " + run.get(0).id() + " not sent (attempt " + attempts + "): "
                        + e.getMessage());
                putBack(rows.subList(from, rows.size()), run.size(), truncate(e.getMessage(), 1000), delay);
                return new BatchResult(sent, lastId, true, unreachable);
            }
            from = to;
        }
        return new BatchResult(sent, lastId, false, false);
    }

    /** A claimed outbox row. */
    private record Row(long id, String topic, String tag, String key, String body, int attempts, String lastError,
                       OffsetDateTime createdAt) {
    }

    /**
     * The rows of a failed send and every row after it, back in the outbox with their ids: the
     * failed request's rows (the first {@code failedCount}) one attempt on, with its error and
     * backoff; the rest as they were, due.
     */
    private void putBack(List<Row> rows, int failedCount, String error, long delaySeconds) {
        int n = rows.size();
        Long[] ids = new Long[n];
        String[] topics = new String[n], tags = new String[n], keys = new String[n], bodies = new String[n], errors = new String[n];
        Integer[] attempts = new Integer[n];
        String[] created = new String[n];
        Boolean[] failed = new Boolean[n];
        for (int i = 0; i < n; i++) {
            Row r = rows.get(i);
            ids[i] = r.id();
            topics[i] = r.topic();
            tags[i] = r.tag();
            keys[i] = r.key();
            bodies[i] = r.body();
            attempts[i] = r.attempts();
            errors[i] = r.lastError();
            created[i] = r.createdAt().toString();
            failed[i] = i < failedCount;
        }
        Jdbc.update(dataSource, failed("put-back"), """
                INSERT INTO outbox (id, topic, tag, message_key, body, created_at, attempts, last_error, next_attempt_at)
                SELECT i, t, g, k, b, c, CASE WHEN f THEN a + 1 ELSE a END, CASE WHEN f THEN ? ELSE e END,
                    CASE WHEN f THEN now() + make_interval(secs => ?) ELSE now() END
                FROM unnest(?::int8[], ?::varchar[], ?::varchar[], ?::varchar[], ?::text[], ?::timestamptz[], ?::int4[], ?::text[],
                    ?::bool[]) AS x(i, t, g, k, b, c, a, e, f)""",
                error, (double) delaySeconds, ids, topics, tags, keys, bodies, created, attempts, errors, failed);
    }

    /** Rows waiting to be sent. */
    public long backlog() {
        return Jdbc.query(dataSource, failed("count"), "SELECT count(*) FROM outbox", rs -> rs.getLong(1)).get(0);
    }

    /** Rows waiting to be sent, counted up to a limit, and the age of the oldest in seconds (0: none). */
    public record Waiting(long rows, double oldestSeconds) {
    }

    /**
     * {@link Waiting} in one statement for the gauges: the count stops at {@code countUpTo} (a
     * backlog grown through a broker outage is not scanned whole every few seconds); the oldest row
     * is the lowest id (a snowflake, in time order) through the primary key, its age by the
     * database's clock. Outside the caller's transaction: a failure here must not roll back the
     * relay's timer.
     */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public Waiting waiting(int countUpTo) {
        return Jdbc.query(dataSource, failed("count"), """
                SELECT (SELECT count(*) FROM (SELECT 1 FROM outbox LIMIT ?) w),
                    coalesce((SELECT extract(epoch FROM now() - created_at)::float8 FROM outbox ORDER BY id LIMIT 1), 0)""",
                rs -> new Waiting(rs.getLong(1), Math.max(0, rs.getDouble(2))), countUpTo).get(0);
    }

    private static Function<SQLException, RuntimeException> failed(String what) {
        return e -> new IllegalStateException("outbox " + what + " failed: " + e.getMessage(), e);
    }

    private static String[] column(List<OutboxPublisher.Message> messages, Function<OutboxPublisher.Message, String> field) {
        return messages.stream().map(field).toArray(String[]::new);
    }

    private static String truncate(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max);
    }
}
