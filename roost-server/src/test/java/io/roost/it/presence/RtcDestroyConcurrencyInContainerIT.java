package io.roost.it.presence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.InContainer;
import io.roost.presence.rtc.MemberTransitions;
import io.roost.presence.rtc.NcsEventType;
import io.roost.presence.rtc.NcsNotice;
import io.roost.presence.store.RtcStore;
import jakarta.annotation.Resource;
import jakarta.ejb.EJB;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Channel destroys (102) applied by transactions running alongside member batches on the same
 * channels, as the ingest writers of several nodes do (this calls the store directly). A destroy
 * takes offline the members still online, so it locks their rows and count shards like a member
 * batch does: no transaction may fail (a deadlock, SQLState 40P01, is what NCS would see as a
 * 503), and every member and count must end exact.
 */
@InContainer
class RtcDestroyConcurrencyInContainerIT {

    static final Duration KICK_DELAY = Duration.ofMinutes(1);
    static final int[] MEMBER_TYPES = {103, 104, 105, 106, 107, 108};
    static final AtomicLong NOTICES = new AtomicLong();


    @EJB
    RtcStore store;

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource db;

    static NcsNotice member(String channel, long uid, int type, long clientSeq, long ts) {
        return new NcsNotice("dc-" + NOTICES.incrementAndGet(), type, 0, channel, uid, clientSeq, ts, 1, 3, null, null);
    }

    static NcsNotice destroy(String channel, long ts) {
        return new NcsNotice("dc-" + NOTICES.incrementAndGet(), NcsEventType.CHANNEL_DESTROY, 0, channel, 0, 0, ts,
                null, null, null, null);
    }

    /** One batch as the ingest writer applies it. */
    record Batch(List<NcsNotice> channelEvents, List<NcsNotice> memberEvents) {
        void applyTo(RtcStore store) {
            store.applyBatch(channelEvents, MemberTransitions.latestPerMember(memberEvents), KICK_DELAY);
        }
    }

    /**
     * Rounds of small batches on two channels, four transactions at a time: member events of random
     * members (joins and leaves stamped around the destroys' times) and, in a third of the batches, a
     * destroy of one of the channels. Randomized; the seed is printed, {@code -Droost.seed=N} replays it.
     */
    @Test
    void destroysAmongConcurrentMemberBatchesNeverFailAndEndExact() throws Exception {
        long seed = Long.getLong("roost.seed", System.nanoTime());
        System.out.println("RtcDestroyConcurrencyInContainerIT seed=" + seed + " (replay with -Droost.seed=" + seed
                + ")");
        long start = System.nanoTime();
        Random random = new Random(seed);
        int threads = 4;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Throwable> failures = new ArrayList<>();
        try {
            for (int round = 0; round < 20; round++) {
                String prefix = "destroy-" + Long.toHexString(seed) + "-" + round + "-";
                List<String> channels = List.of(prefix + "a", prefix + "b");
                long base = 1_000;
                Map<String, NcsNotice> latest = new HashMap<>();
                Map<String, Long> destroyedTs = new HashMap<>();
                List<NcsNotice> joins = new ArrayList<>();
                for (String channel : channels) {
                    for (long uid = 1; uid <= 24; uid++) {
                        NcsNotice join = member(channel, uid, NcsEventType.AUDIENCE_JOIN, 1, base);
                        joins.add(join);
                        latest.put(channel + "/" + uid, join);
                    }
                }
                new Batch(List.of(), joins).applyTo(store); // everyone online: a destroy has rows to take offline
                ConcurrentLinkedQueue<Batch> batches = new ConcurrentLinkedQueue<>();
                for (int b = 0; b < 16; b++) {
                    List<NcsNotice> members = new ArrayList<>();
                    for (int k = 0; k < 6; k++) {
                        String channel = channels.get(random.nextInt(channels.size()));
                        long uid = 1 + random.nextInt(24);
                        NcsNotice e = member(channel, uid, MEMBER_TYPES[random.nextInt(MEMBER_TYPES.length)],
                                latest.get(channel + "/" + uid).clientSeq() + 1, base + 1 + random.nextInt(20));
                        members.add(e);
                        latest.put(channel + "/" + uid, e);
                    }
                    List<NcsNotice> destroys = new ArrayList<>();
                    if (random.nextInt(3) == 0) {
                        NcsNotice d = destroy(channels.get(random.nextInt(channels.size())),
                                base + 1 + random.nextInt(20));
                        destroys.add(d);
                        destroyedTs.merge(d.channelName(), d.ts(), Math::max);
                    }
                    batches.add(new Batch(destroys, members));
                }
                failures.addAll(applyConcurrently(pool, threads, batches));
                if (!failures.isEmpty()) {
                    break;
                }
                for (String channel : channels) {
                    assertMembersAndCounts(channel, latest, destroyedTs.get(channel),
                            " (seed " + seed + ", round " + round + ")");
                }
            }
        } finally {
            pool.shutdownNow();
        }
        System.out.printf("RtcDestroyConcurrencyInContainerIT seed=%d: %.1f s%n", seed,
                (System.nanoTime() - start) / 1e9);
        assertNoFailures(failures, "seed " + seed);
    }

    /**
     * The interleaving that deadlocked, made on purpose: a member batch on channels a and b holds
     * a's count shard and waits for b's (a gate transaction holds it) when a destroy of a comes.
     * The destroy locked a's online members, then wanted the batch's shard; the batch, once the
     * gate opened, wanted one of those members.
     */
    @Test
    void aDestroyWaitsForABatchThatHoldsOneOfItsShards() throws Exception {
        String prefix = "destroy-gate-" + System.nanoTime();
        String a = prefix + "-a";
        String b = prefix + "-b";
        long ts = 1_000;
        // uid 9 online in both channels (shard 1)
        new Batch(List.of(), List.of(member(a, 9, NcsEventType.AUDIENCE_JOIN, 1, ts),
                member(b, 9, NcsEventType.AUDIENCE_JOIN, 1, ts))).applyTo(store);
        Batch leaves = new Batch(List.of(), List.of(member(a, 9, NcsEventType.AUDIENCE_LEAVE, 2, ts),
                member(b, 9, NcsEventType.AUDIENCE_LEAVE, 2, ts)));
        List<Throwable> failures = interleave(
                "SELECT 1 FROM rtc_channel_count WHERE channel_name = ? AND shard = 1 FOR UPDATE", b, leaves,
                new Batch(List.of(destroy(a, ts + 10)), List.of()));
        assertNoFailures(failures, a);
        assertMembersAndCounts(a, Map.of(a + "/9", leaves.memberEvents().get(0)), ts + 10, "");
        assertMembersAndCounts(b, Map.of(b + "/9", leaves.memberEvents().get(1)), null, "");
    }

    /**
     * A re-join older than a destroy, in a batch that has read the channel (not destroyed yet) and
     * waits for the member's row (a gate transaction holds it) when the destroy comes. The destroy
     * did not see the re-join and committed; the re-join then stayed online. It must end offline.
     */
    @Test
    void aJoinOlderThanAConcurrentDestroyEndsOffline() throws Exception {
        String channel = "destroy-gate-" + System.nanoTime();
        long ts = 1_000;
        new Batch(List.of(), List.of(member(channel, 8, NcsEventType.AUDIENCE_JOIN, 1, ts))).applyTo(store);
        new Batch(List.of(), List.of(member(channel, 8, NcsEventType.AUDIENCE_LEAVE, 2, ts))).applyTo(store);
        Batch rejoin = new Batch(List.of(), List.of(member(channel, 8, NcsEventType.AUDIENCE_JOIN, 3, ts)));
        List<Throwable> failures = interleave(
                "SELECT 1 FROM rtc_member WHERE channel_name = ? AND uid = 8 FOR UPDATE", channel, rejoin,
                new Batch(List.of(destroy(channel, ts + 10)), List.of()));
        assertNoFailures(failures, channel);
        assertMembersAndCounts(channel, Map.of(channel + "/8", rejoin.memberEvents().get(0)), ts + 10, "");
    }

    /**
     * A gate transaction locks a row ({@code gateSql} with {@code channel}); {@code first} starts
     * and waits for the gate; {@code second} starts and waits for {@code first} (or finishes); then
     * the gate opens. Returns what failed of the two.
     */
    List<Throwable> interleave(String gateSql, String channel, Batch first, Batch second) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Throwable> failures = new ArrayList<>();
        try (Connection gate = db.getConnection(); Connection watch = db.getConnection()) {
            List<Future<?>> batches = new ArrayList<>();
            gate.setAutoCommit(false);
            try {
                try (PreparedStatement ps = gate.prepareStatement(gateSql)) {
                    ps.setString(1, channel);
                    try (ResultSet rs = ps.executeQuery()) {
                        assertTrue(rs.next(), "the gate holds a row");
                    }
                }
                batches.add(pool.submit(() -> first.applyTo(store)));
                int firstPid = awaitBlockedBy(watch, backendPid(gate), batches.get(0));
                assertTrue(firstPid > 0, "the first batch waits for the gate");
                batches.add(pool.submit(() -> second.applyTo(store)));
                awaitBlockedBy(watch, firstPid, batches.get(1));
            } finally {
                gate.rollback();
                gate.setAutoCommit(true);
            }
            for (Future<?> f : batches) {
                try {
                    f.get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    failures.add(e.getCause());
                }
            }
        } finally {
            pool.shutdownNow();
        }
        return failures;
    }

    /** Applies the batches, {@code threads} transactions at a time; returns what failed. */
    List<Throwable> applyConcurrently(ExecutorService pool, int threads, ConcurrentLinkedQueue<Batch> batches)
            throws InterruptedException {
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Future<List<Throwable>>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(pool.submit((Callable<List<Throwable>>) () -> {
                start.await();
                List<Throwable> failed = new ArrayList<>();
                for (Batch b; (b = batches.poll()) != null; ) {
                    try {
                        b.applyTo(store);
                    } catch (RuntimeException e) {
                        failed.add(e);
                    }
                }
                return failed;
            }));
        }
        List<Throwable> failed = new ArrayList<>();
        for (Future<List<Throwable>> w : workers) {
            try {
                failed.addAll(w.get());
            } catch (ExecutionException e) {
                failed.add(e.getCause());
            }
        }
        return failed;
    }

    static void assertNoFailures(List<Throwable> failures, String where) {
        long deadlocks = failures.stream().filter(RtcDestroyConcurrencyInContainerIT::isDeadlock).count();
        failures.forEach(f -> System.out.println("failed transaction: " + f));
        assertEquals(0, failures.size(), failures.size() + " transactions failed, " + deadlocks
                + " of them deadlocked (40P01) (" + where + ")");
    }

    static boolean isDeadlock(Throwable t) {
        for (; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && "40P01".equals(s.getSQLState())) {
                return true;
            }
        }
        return false;
    }

    /** Each member as the rules say (its highest clientSeq, offline if older than the last destroy), and the counts. */
    void assertMembersAndCounts(String channel, Map<String, NcsNotice> latest, Long destroyedTs, String where)
            throws SQLException {
        long[] expectedCounts = new long[4];
        try (Connection c = db.getConnection();
             PreparedStatement ps = c.prepareStatement(
                     "SELECT uid, online, role, last_client_seq FROM rtc_member WHERE channel_name = ?")) {
            ps.setString(1, channel);
            Map<Long, String> actual = new HashMap<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    actual.put(rs.getLong(1), rs.getBoolean(2) + " " + rs.getInt(3) + " " + rs.getLong(4));
                }
            }
            for (var e : latest.entrySet()) {
                if (!e.getKey().startsWith(channel + "/")) {
                    continue;
                }
                MemberTransitions.State want = MemberTransitions.apply(null, e.getValue(), destroyedTs);
                assertEquals(want.online() + " " + want.role().code + " " + want.clientSeq(),
                        actual.get(e.getValue().uid()), "online, role, clientSeq of " + e.getKey() + where);
                if (want.online()) {
                    expectedCounts[want.role().code]++;
                }
            }
        }
        assertEquals(List.of(expectedCounts[1], expectedCounts[2], expectedCounts[3]), counts(channel),
                "broadcasters, audience, communication of " + channel + where);
    }

    List<Long> counts(String channel) throws SQLException {
        try (Connection c = db.getConnection();
             PreparedStatement ps = c.prepareStatement("""
                     SELECT coalesce(sum(broadcasters), 0), coalesce(sum(audience), 0), coalesce(sum(communication), 0)
                     FROM rtc_channel_count WHERE channel_name = ?""")) {
            ps.setString(1, channel);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return List.of(rs.getLong(1), rs.getLong(2), rs.getLong(3));
            }
        }
    }

    static int backendPid(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /**
     * Waits until some backend waits for a lock {@code holder} holds, and returns its pid; 0 if
     * {@code task} finished first.
     */
    static int awaitBlockedBy(Connection watch, int holder, Future<?> task) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        try (PreparedStatement ps = watch.prepareStatement(
                "SELECT DISTINCT pid FROM pg_locks WHERE NOT granted AND ? = ANY(pg_blocking_pids(pid))")) {
            ps.setInt(1, holder);
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        return rs.getInt(1);
                    }
                }
                if (task.isDone()) {
                    return 0;
                }
                Thread.sleep(10);
            }
        }
        throw new AssertionError("nothing waited for backend " + holder + " within 10 s");
    }
}
