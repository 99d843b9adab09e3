package io.roost.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.platform.cluster.OncePerCluster;
import io.roost.platform.ids.IdGenerator;
import io.roost.platform.ids.Snowflake;
import io.roost.platform.messaging.ConsumedMessages;
import io.roost.platform.messaging.RocketMqProducer;
import io.roost.platform.outbox.OutboxPublisher;
import io.roost.platform.outbox.OutboxRelay;
import io.roost.platform.store.CustomPlans;
import jakarta.annotation.Resource;
import jakarta.ejb.EJB;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.UserTransaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** In-container: the platform services injected, against the real database and broker. */
@InContainer
class PlatformInContainerIT {

    @Inject
    IdGenerator ids;

    @Inject
    OutboxPublisher outbox;

    @EJB
    OutboxRelay relay;

    @Inject
    ConsumedMessages consumed;

    @Inject
    UserTransaction tx;

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    javax.sql.DataSource dataSource;

    @EJB
    OncePerCluster once;

    @EJB
    RocketMqProducer producer;

    /** What two nodes' timers do at the same second: the second caller of a task skips it while the first one's transaction runs. */
    @Test
    void aClusterTaskRunsForOneTransactionAtATime() throws Exception {
        String task = "it-task-" + UUID.randomUUID();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> first = other.submit(() -> once.run(task, () -> {
                holding.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return 7;
            }));
            assertTrue(holding.await(30, TimeUnit.SECONDS), "the first caller runs its batch");
            AtomicBoolean ran = new AtomicBoolean();
            assertEquals(0, once.run(task, () -> {
                ran.set(true);
                return 1;
            }), "skipped while the first transaction holds the task");
            assertFalse(ran.get());
            assertEquals(5, once.run(task + "-other", () -> 5), "another task is not held");
            release.countDown();
            assertEquals(7, first.get(30, TimeUnit.SECONDS));
            assertEquals(3, once.run(task, () -> 3), "free again once the first transaction ended");
        } finally {
            release.countDown();
            other.shutdownNow();
        }
    }

    @Test
    void idGeneratorUsesTheConfiguredNodeAndIncreases() {
        long a = ids.nextId();
        long b = ids.nextId();
        assertTrue(b > a);
        assertEquals(1, Snowflake.nodeId(a), "ROOST_NODE_ID=1 in the test environment");
        assertTrue(Math.abs(Snowflake.timestampMs(a) - System.currentTimeMillis()) < 10_000);
    }

    @Test
    void aCustomPlanStatementIsNeverPreparedOnTheServerWhereAPlainOneIs() throws Exception {
        try (Connection c = dataSource.getConnection()) {
            for (int i = 0; i < 10; i++) { // the driver names a statement on the server from its 5th use on
                try (PreparedStatement ps = CustomPlans.prepare(c,
                        "SELECT count(*) FROM presence_device_route WHERE uid = ? /* custom-plan probe */")) {
                    ps.setLong(1, i);
                    ps.executeQuery().close();
                }
                try (PreparedStatement ps = c.prepareStatement(
                        "SELECT count(*) FROM presence_device_route WHERE uid = ? /* cached-plan probe */")) {
                    ps.setLong(1, i);
                    ps.executeQuery().close();
                }
            }
            assertEquals(0, namedStatements(c, "custom-plan probe"), "planned at each execution: never a named statement");
            assertEquals(1, namedStatements(c, "cached-plan probe"), "the plain statement is named (its plan cached) on this connection");
        }
    }

    /** This connection's server-side prepared statements whose text contains {@code marker}. */
    private static int namedStatements(Connection c, String marker) throws Exception {
        try (Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT statement FROM pg_prepared_statements")) {
            int n = 0;
            while (rs.next()) {
                n += rs.getString(1).contains(marker) ? 1 : 0;
            }
            return n;
        }
    }

    @Test
    void flywayCreatedTheSchema() {
        Object version = em.createNativeQuery(
                "SELECT version FROM flyway_schema_history WHERE success AND version = '1'").getSingleResult();
        assertEquals("1", version);
        List<?> tables = em.createNativeQuery("""
                SELECT table_name FROM information_schema.tables
                WHERE table_schema = 'public' AND table_name IN ('outbox', 'consumed_message', 'account', 'access_token')""")
                .getResultList();
        assertEquals(4, tables.size(), "tables: " + tables);
    }

    @Test
    void committedOutboxMessageIsConsumedBackFromTheBroker() throws Exception {
        String body = "committed-" + UUID.randomUUID();
        tx.begin();
        long id = outbox.publish(ProbeConsumer.TOPIC, "probe", "k-" + body, body);
        tx.commit();
        awaitApplied(body);
        awaitRelayDeleted(List.of(id));
    }

    /**
     * The relay deletes what it sent once the broker took it; a consumer may apply a message before
     * that delete commits, so this waits a little rather than looking once.
     */
    void awaitRelayDeleted(List<Long> ids) throws Exception {
        String array = ids.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(",", "{", "}"));
        Wait.until("the relay deletes what it sent", Duration.ofSeconds(5), () -> ((Number) em
                .createNativeQuery("SELECT count(*) FROM outbox WHERE id = ANY(CAST(?1 AS bigint[]))")
                .setParameter(1, array).getSingleResult()).longValue() == 0);
    }

    /**
     * The relay claims and deletes rows in one statement; a send the broker refuses (here a topic
     * name it rejects) puts its rows back one attempt on, with the error and a backoff, and the rows
     * behind it back as they were, so they go out in the next round.
     */
    @Test
    void aRefusedSendIsPutBackWithItsErrorAndTheRowsBehindItStillGoOut() throws Exception {
        String run = UUID.randomUUID().toString();
        tx.begin();
        long refused = outbox.publish("no such topic!", "probe", "k-" + run, "refused-" + run);
        outbox.publish(ProbeConsumer.TOPIC, "probe", "k-" + run, "behind-refused-" + run);
        tx.commit();
        try {
            awaitApplied("behind-refused-" + run);
            Object[] row = (Object[]) em.createNativeQuery("SELECT attempts, last_error FROM outbox WHERE id = ?1")
                    .setParameter(1, refused).getSingleResult();
            assertTrue(((Number) row[0]).intValue() >= 1, "attempts: " + row[0]);
            assertNotNull(row[1], "the refusal is recorded");
        } finally {
            tx.begin();
            em.joinTransaction();
            em.createNativeQuery("DELETE FROM outbox WHERE id = ?1").setParameter(1, refused).executeUpdate();
            tx.commit();
        }
    }

    @Test
    void aBurstOfOutboxMessagesGoesOutInBatchesAndEveryOneArrives() throws Exception {
        String run = UUID.randomUUID().toString();
        List<Long> sent = new java.util.ArrayList<>();
        tx.begin();
        for (int i = 0; i < 250; i++) { // more than one relay batch (200), sent as runs of one topic
            sent.add(outbox.publish(ProbeConsumer.TOPIC, "probe", "k-" + i, "burst-" + run + "-" + i));
        }
        tx.commit();
        for (int i = 0; i < 250; i++) {
            awaitApplied("burst-" + run + "-" + i);
        }
        awaitRelayDeleted(sent);
    }

    @Test
    void aStreamOfCommitsIsRelayedInFewRoundsAndEveryMessageArrives() throws Exception {
        String run = UUID.randomUUID().toString();
        long roundsBefore = relay.rounds();
        long started = System.nanoTime();
        int commits = 200;
        for (int i = 0; i < commits; i++) { // one message a transaction, a few ms apart, as login batches commit
            tx.begin();
            outbox.publish(ProbeConsumer.TOPIC, "probe", "k-" + i, "stream-" + run + "-" + i);
            tx.commit();
            Thread.sleep(5);
        }
        long streamMillis = (System.nanoTime() - started) / 1_000_000;
        for (int i = 0; i < commits; i++) {
            awaitApplied("stream-" + run + "-" + i);
        }
        long rounds = relay.rounds() - roundsBefore;
        long totalMillis = (System.nanoTime() - started) / 1_000_000;
        // While commits keep coming, a round at most every LINGER; plus the last one, the 2 s timer's,
        // and a few for the server's own commits. Without the linger, about a round a commit: 60-200.
        long allowed = streamMillis / OutboxRelay.LINGER.toMillis() + 2 + (totalMillis / 2000 + 1) + 8;
        assertTrue(rounds <= allowed, commits + " commits in " + streamMillis + " ms took " + rounds
                + " relay rounds, more than " + allowed);
    }

    /**
     * A relay round claims only the ids of the last seconds; a message whose transaction took its
     * id longer ago than that before committing is below every round's start, and the timer's
     * sweep from the lowest id sends it within about a second.
     */
    @Test
    void aMessageCommittedLongAfterItsIdWasTakenIsStillSent() throws Exception {
        String body = "late-commit-" + UUID.randomUUID();
        tx.begin();
        long id = takenLongAgo(outbox.publish(ProbeConsumer.TOPIC, "probe", "k-" + body, body));
        tx.commit();
        long committed = System.nanoTime();
        // commits after it nudge rounds that start above its id
        for (int i = 0; i < 5; i++) {
            tx.begin();
            outbox.publish(ProbeConsumer.TOPIC, "probe", "k", "after-late-" + i + "-" + body);
            tx.commit();
        }
        awaitApplied(body);
        long waitedMs = (System.nanoTime() - committed) / 1_000_000;
        assertTrue(waitedMs < 5_000, "sent " + waitedMs + " ms after its commit");
        awaitRelayDeleted(List.of(id));
    }

    /**
     * Gives the outbox row {@code id}, written in the running transaction, an id taken a second
     * before a relay round's reach back ({@link OutboxRelay#RECENT}): what the relay goes by is
     * the id alone, so this is a transaction that took its id that long ago, without the wait. The
     * id is of node {@value Snowflake#MAX_NODE_ID}, which no node of the suite is, so no id taken
     * then can be the same. Returns the new id.
     */
    private long takenLongAgo(long id) {
        long old = Snowflake.firstIdAt(System.currentTimeMillis() - OutboxRelay.RECENT.toMillis() - 1_000)
                | ((long) Snowflake.MAX_NODE_ID << Snowflake.SEQUENCE_BITS) | (id & ((1L << Snowflake.SEQUENCE_BITS) - 1));
        em.joinTransaction();
        assertEquals(1, em.createNativeQuery("UPDATE outbox SET id = ?1 WHERE id = ?2").setParameter(1, old).setParameter(2, id)
                .executeUpdate());
        return old;
    }

    @Test
    void rolledBackOutboxMessageIsNeverSent() throws Exception {
        String rolledBack = "rolled-back-" + UUID.randomUUID();
        tx.begin();
        long id = outbox.publish(ProbeConsumer.TOPIC, "probe", "k", rolledBack);
        tx.rollback();
        assertEquals(0L, ((Number) em.createNativeQuery("SELECT count(*) FROM outbox WHERE id = ?1")
                .setParameter(1, id).getSingleResult()).longValue());

        // A message committed after it arrives; the rolled-back one, sent before it if at all, did not.
        String committed = "after-rollback-" + UUID.randomUUID();
        tx.begin();
        outbox.publish(ProbeConsumer.TOPIC, "probe", "k", committed);
        tx.commit();
        awaitApplied(committed);
        assertFalse(ProbeConsumer.DELIVERED.contains(rolledBack));
    }

    /**
     * RocketMQ delivers at least once: the same message twice (the relay sending a row again keeps
     * its id as the message's roostId) reaches the consumer twice, is applied once and skipped once.
     */
    @Test
    void aRedeliveredMessageIsAppliedOnce() throws Exception {
        String body = "redelivered-" + UUID.randomUUID();
        long id = ids.nextId();
        for (int delivery = 0; delivery < 2; delivery++) {
            producer.send(id, ProbeConsumer.TOPIC, "probe", "k-" + body, body);
        }
        // both deliveries decided (each one's transaction ran), not only handed to the consumer
        Wait.until("both deliveries reach the consumer and are decided", Duration.ofSeconds(60),
                () -> count(ProbeConsumer.APPLIED, body) + count(ProbeConsumer.SKIPPED, body) == 2);
        assertEquals(2, count(ProbeConsumer.DELIVERED, body), "delivered twice");
        assertEquals(1, count(ProbeConsumer.APPLIED, body), "applied once");
        assertEquals(1, count(ProbeConsumer.SKIPPED, body), "the redelivery skipped");
    }

    private static long count(java.util.Collection<String> bodies, String body) {
        return bodies.stream().filter(body::equals).count();
    }

    /** What the consumers' skip rests on: the first delivery per consumer group counts, and a rolled-back one does not. */
    @Test
    void aDeliveryIsFirstOncePerConsumerGroupAndARolledBackOneDoesNotCount() throws Exception {
        String messageId = "m-" + UUID.randomUUID();
        tx.begin();
        assertTrue(consumed.firstDelivery("it-group", messageId));
        assertFalse(consumed.firstDelivery("it-group", messageId));
        assertTrue(consumed.firstDelivery("other-group", messageId), "groups are independent");
        tx.commit();

        String rolledBackId = "m-" + UUID.randomUUID();
        tx.begin();
        assertTrue(consumed.firstDelivery("it-group", rolledBackId));
        tx.rollback();
        tx.begin();
        assertTrue(consumed.firstDelivery("it-group", rolledBackId), "a rolled-back application does not count");
        tx.commit();
    }

    private void awaitApplied(String body) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (ProbeConsumer.APPLIED.contains(body)) {
                return;
            }
            Thread.sleep(50);
        }
        // Where it got stuck: still in the outbox (and why), or sent and delivered but not applied, or sent and never delivered.
        List<?> outboxRow = em.createNativeQuery("SELECT attempts, last_error, next_attempt_at FROM outbox WHERE body = ?1")
                .setParameter(1, body).getResultList();
        throw new AssertionError("message " + body + " was not consumed back within 60 s; outbox row: "
                + (outboxRow.isEmpty() ? "none (sent)" : java.util.Arrays.toString((Object[]) outboxRow.get(0)))
                + "; delivered: " + ProbeConsumer.DELIVERED.contains(body) + "; applied " + ProbeConsumer.APPLIED.size()
                + " probe messages, of them " + ProbeConsumer.APPLIED.stream().filter(b -> b.startsWith(body.substring(0, body.lastIndexOf('-') + 1))).count()
                + " of this run");
    }
}
