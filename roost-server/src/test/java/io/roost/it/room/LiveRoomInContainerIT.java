package io.roost.it.room;

import static io.roost.it.Wait.sleep;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.identity.AccountService;
import io.roost.it.DeadlockLog;
import io.roost.it.InContainer;
import io.roost.it.InContainerUsers;
import io.roost.it.LockOrder;
import io.roost.it.Wait;
import io.roost.platform.problem.ProblemException;
import io.roost.room.LiveRooms;
import io.roost.room.LoyalFan;
import io.roost.room.RoomHeartbeats;
import io.roost.room.RoomHousekeeping;
import io.roost.room.RoomSession;
import io.roost.room.RoomStats;
import io.roost.room.Viewer;
import io.roost.room.store.RoomStore;
import io.roost.social.SocialGraph;
import jakarta.annotation.Resource;
import jakarta.ejb.EJB;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Live rooms in the container against the real database (seed 002): the eight scenarios, the
 * timeout sweeps, counts equal to rows under 32 concurrent threads, cross-session fan queries and
 * closing a big room without stalling another. The tests run with a 4 s viewer timeout and an 8 s
 * anchor timeout (pom.xml); viewer uids need no account, anchors do.
 */
@InContainer
class LiveRoomInContainerIT {

    @Inject
    LiveRooms rooms;

    @Inject
    SocialGraph graph;

    @Inject
    AccountService accounts;

    @EJB
    RoomHeartbeats heartbeats;

    @EJB
    RoomHousekeeping housekeeping;

    @EJB
    RoomStore store;

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource db;

    static final AtomicLong VIEWER_IDS = new AtomicLong(7_000_000_000L + (System.nanoTime() % 1_000_000L) * 1_000L);

    long anchor() {
        return InContainerUsers.create(accounts, "lr-");
    }

    static long viewer() {
        return VIEWER_IDS.incrementAndGet();
    }

    static String room() {
        return "it-room-" + UUID.randomUUID().toString().substring(0, 8);
    }

    RoomStats stats(String room) {
        return rooms.stats(room);
    }

    void heartbeat(String room, long... uids) {
        rooms.heartbeat(room, LongStream.of(uids).boxed().toList());
        heartbeats.flush();
    }

    static void assertCounts(int online, int fans, RoomStats s) {
        assertEquals(online, s.online(), "online");
        assertEquals(fans, s.onlineFans(), "onlineFans");
    }

    static int status(Runnable call) {
        return assertThrows(ProblemException.class, call::run).status();
    }

    @Test
    void theSeedsEightScenarios() throws Exception {
        long anchor = anchor();
        long other = anchor();
        String room = room();
        long fanA = viewer();
        long fanB = viewer();
        long plain = viewer();
        graph.follow(fanA, anchor);
        graph.follow(fanB, anchor);

        // 6: the anchor opens; again is the same session; another anchor is refused
        LiveRooms.Opened opened = rooms.open(room, anchor, "first");
        assertTrue(opened.created());
        assertEquals(opened.session().id(), rooms.open(room, anchor, "again").session().id());
        assertFalse(rooms.open(room, anchor, null).created());
        assertEquals("room-busy", assertThrows(ProblemException.class, () -> rooms.open(room, other, null)).type());
        assertCounts(0, 0, stats(room));

        // 1: entering decides fan or not; entering twice keeps the first stay and the counts
        Viewer a = rooms.enter(room, List.of(fanA)).get(0);
        assertTrue(a.fan());
        assertFalse(rooms.enter(room, List.of(plain)).get(0).fan());
        assertCounts(2, 1, stats(room));
        Viewer again = rooms.enter(room, List.of(fanA)).get(0);
        assertEquals(a.enteredAt(), again.enteredAt());
        assertEquals(1, again.entries());
        assertCounts(2, 1, stats(room));
        assertEquals("anchor-not-viewer", assertThrows(ProblemException.class, () -> rooms.enter(room, List.of(anchor))).type());

        // 7: following during the session counts after the next heartbeat, not before
        graph.follow(plain, anchor);
        assertCounts(2, 1, stats(room));
        heartbeat(room, plain);
        assertCounts(2, 2, stats(room));
        // 8: unfollowing likewise
        graph.unfollow(fanA, anchor);
        heartbeat(room, fanA, plain);
        assertCounts(2, 1, stats(room));
        assertFalse(rooms.viewer(room, fanA).orElseThrow().fan());

        // 3: leaving; twice changes nothing; a late heartbeat does not bring the viewer back
        assertEquals(1, rooms.leave(room, List.of(plain)));
        assertEquals(0, rooms.leave(room, List.of(plain)));
        assertCounts(1, 0, stats(room));
        heartbeat(room, plain);
        assertCounts(1, 0, stats(room));
        assertEquals("leave", rooms.viewer(room, plain).orElseThrow().leftBy());

        // the seed's ZCOUNT: online fans by entry time
        OffsetDateTime before = OffsetDateTime.now().minusSeconds(1);
        Viewer b = rooms.enter(room, List.of(fanB)).get(0);
        assertEquals(1, rooms.fansEntered(room, before, b.enteredAt().plusSeconds(1)));
        assertEquals(0, rooms.fansEntered(room, before.minusHours(1), before));
        assertEquals(List.of(fanB), rooms.viewers(room, true, null, 10).stream().map(Viewer::uid).toList());
        assertEquals(List.of(fanA, fanB), rooms.viewers(room, false, null, 10).stream().map(Viewer::uid).toList());
        assertEquals(List.of(fanB), rooms.viewers(room, false, fanA, 10).stream().map(Viewer::uid).toList());

        // 5: closing keeps the final counts; the records go offline right after, stamped with the close
        assertEquals(403, status(() -> rooms.close(room, other)));
        RoomSession closed = rooms.close(room, anchor);
        assertEquals(2, closed.online());
        assertEquals(1, closed.onlineFans());
        assertEquals("closed", closed.closeReason());
        assertEquals("no-open-session", assertThrows(ProblemException.class, () -> rooms.stats(room)).type());
        assertEquals(404, status(() -> rooms.enter(room, List.of(fanA))));
        assertEquals(0, rooms.leave(room, List.of(fanA)), "leaving a room that is not live changes nothing");
        Wait.until("the closed session is cleared", Duration.ofSeconds(30), () -> rooms.session(room, closed.id()).cleared());
        Viewer history = rooms.attendance(closed.id(), fanB).orElseThrow();
        assertFalse(history.online());
        assertEquals("close", history.leftBy());
        assertEquals(closed.closedAt().toInstant(), history.lastLeftAt().toInstant());
        assertTrue(history.onlineMs() >= 0 && history.onlineMs() < 60_000, "time in the room: " + history.onlineMs());
        assertEquals(List.of(), store.viewers(closed.id(), false, null, 10), "no viewer of a closed session is online");

        // 6 again: a new session starts from zero
        LiveRooms.Opened second = rooms.open(room, anchor, "second");
        assertTrue(second.created());
        assertNotEquals(closed.id(), second.session().id());
        assertCounts(0, 0, stats(room));
        rooms.close(room, null);

        // history older than the retention goes, in batches, with its viewers
        try (Connection c = db.getConnection();
             PreparedStatement ps = c.prepareStatement("UPDATE room_session SET closed_at = now() - interval '31 days' WHERE id = ?")) {
            ps.setLong(1, closed.id());
            assertEquals(1, ps.executeUpdate());
        }
        assertTrue(store.purgeHistory(Duration.ofDays(30), 1000) >= 4, "3 viewer rows and the session");
        assertEquals(404, status(() -> rooms.session(room, closed.id())));
        assertTrue(store.viewer(closed.id(), fanB).isEmpty());
    }

    /**
     * A connection's last heartbeat, still in the node's buffer when the connection closes, is not
     * written after the drop: the viewer stays left by the drop. A heartbeat from another of the
     * user's devices after the drop brings the viewer back.
     */
    @Test
    void aHeartbeatHeardBeforeTheDropDoesNotBringTheViewerBack() {
        long anchor = anchor();
        String room = room();
        rooms.open(room, anchor, null);
        long fan = viewer();
        rooms.enter(room, List.of(fan));
        assertCounts(1, 0, stats(room));

        rooms.heartbeat(room, List.of(fan)); // buffered, as every heartbeat is
        rooms.dropped(room, fan); // then its connection closes, before the buffer is flushed
        heartbeats.flush();
        Viewer left = rooms.viewer(room, fan).orElseThrow();
        assertFalse(left.online(), left.toString());
        assertEquals("drop", left.leftBy());
        assertCounts(0, 0, stats(room));

        heartbeat(room, fan); // the user's other device, still watching
        Viewer back = rooms.viewer(room, fan).orElseThrow();
        assertTrue(back.online(), back.toString());
        assertCounts(1, 0, stats(room));
        rooms.close(room, anchor);
    }

    @Test
    void silentViewersAreSweptAndASilentAnchorsSessionCloses() throws Exception {
        long anchor = anchor();
        String room = room();
        long talker = viewer();
        long silent = viewer();
        graph.follow(silent, anchor);
        rooms.open(room, anchor, null);
        rooms.enter(room, List.of(talker, silent));
        assertCounts(2, 1, stats(room));

        // 4: the silent viewer is swept after the 4 s timeout; the one heartbeating stays
        long until = System.nanoTime() + Duration.ofSeconds(12).toNanos();
        while (stats(room).online() == 2 && System.nanoTime() < until) {
            heartbeat(room, talker);
            rooms.anchorHeartbeat(room, anchor);
            Thread.sleep(500);
        }
        assertCounts(1, 0, stats(room));
        Viewer swept = rooms.viewer(room, silent).orElseThrow();
        assertEquals("timeout", swept.leftBy());
        assertTrue(rooms.viewer(room, talker).orElseThrow().online());
        assertEquals(0, rooms.leave(room, List.of(silent)), "a leave after the sweep changes nothing");
        assertCounts(1, 0, stats(room));
        // a heartbeat proves it alive after all: it is back, as a new stay
        heartbeat(room, silent);
        assertCounts(2, 1, stats(room));
        assertEquals(2, rooms.viewer(room, silent).orElseThrow().entries());

        // the anchor stops: the session closes by itself after the 8 s anchor timeout
        long sessionId = rooms.openSession(room).id();
        Wait.until("the anchor's session times out", Duration.ofSeconds(25),
                () -> !rooms.session(room, sessionId).open());
        RoomSession closed = rooms.session(room, sessionId);
        assertEquals("anchor_timeout", closed.closeReason());
    }

    @Test
    void countsEqualRowsUnder32ConcurrentThreads() throws Exception {
        long seed = Long.getLong("roost.seed", System.nanoTime());
        System.out.println("LiveRoomInContainerIT.countsEqualRowsUnder32ConcurrentThreads seed=" + seed + " (-Droost.seed=)");
        long[] anchors = {anchor(), anchor()};
        String[] roomIds = {room(), room()};
        for (int i = 0; i < 2; i++) {
            rooms.open(roomIds[i], anchors[i], null);
        }
        long[] viewers = LongStream.range(0, 120).map(i -> viewer()).toArray();
        DeadlockLog deadlocks = DeadlockLog.watch(db);
        AtomicBoolean running = new AtomicBoolean(true);
        ExecutorService pool = Executors.newFixedThreadPool(34);
        try {
            Future<?> anchorBeat = pool.submit(() -> {
                while (running.get()) {
                    for (int i = 0; i < 2; i++) {
                        rooms.anchorHeartbeat(roomIds[i], anchors[i]);
                    }
                    heartbeats.flush();
                    housekeeping.sweepTimeouts();
                    sleep(300);
                }
                return null;
            });
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 32; t++) {
                Random random = new Random(seed + t);
                workers.add(pool.submit(() -> {
                    for (int op = 0; op < 150; op++) {
                        int r = random.nextInt(2);
                        List<Long> some = new ArrayList<>();
                        for (int k = 1 + random.nextInt(6); k > 0; k--) {
                            some.add(viewers[random.nextInt(viewers.length)]);
                        }
                        switch (random.nextInt(6)) {
                            case 0, 1 -> rooms.enter(roomIds[r], some);
                            case 2 -> rooms.heartbeat(roomIds[r], some);
                            case 3 -> rooms.leave(roomIds[r], some);
                            case 4 -> graph.follow(some.get(0), anchors[r]);
                            default -> graph.unfollow(some.get(0), anchors[r]);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> w : workers) {
                w.get(3, TimeUnit.MINUTES);
            }
            running.set(false);
            anchorBeat.get(1, TimeUnit.MINUTES);
        } finally {
            pool.shutdownNow();
        }
        // every viewer still online heartbeats once more: the fan flags must then match the graph
        for (int i = 0; i < 2; i++) {
            List<Long> online = rooms.viewers(roomIds[i], false, null, 1000).stream().map(Viewer::uid).toList();
            if (!online.isEmpty()) {
                rooms.heartbeat(roomIds[i], online);
            }
        }
        heartbeats.flush();
        for (int i = 0; i < 2; i++) {
            long session = rooms.openSession(roomIds[i]).id();
            try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement("""
                    SELECT (SELECT coalesce(sum(online), 0) FROM room_count WHERE session_id = ?),
                           (SELECT coalesce(sum(online_fans), 0) FROM room_count WHERE session_id = ?),
                           (SELECT count(*) FROM room_viewer WHERE session_id = ? AND online),
                           (SELECT count(*) FROM room_viewer WHERE session_id = ? AND online AND fan),
                           (SELECT count(*) FROM room_count WHERE session_id = ? AND (online < 0 OR online_fans < 0)),
                           (SELECT count(*) FROM room_viewer v WHERE session_id = ? AND online
                              AND fan <> EXISTS (SELECT 1 FROM social_follow f WHERE f.follower_id = v.uid AND f.followee_id = ?)),
                           (SELECT count(*) FROM room_viewer WHERE session_id = ?)""")) {
                for (int p = 1; p <= 8; p++) {
                    ps.setLong(p, p == 7 ? anchors[i] : session);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    System.out.printf("room %d: online %d (rows %d), fans %d (rows %d), viewers ever %d%n", i, rs.getLong(1),
                            rs.getLong(3), rs.getLong(2), rs.getLong(4), rs.getLong(7));
                    assertEquals(rs.getLong(3), rs.getLong(1), "online counter = online rows (seed " + seed + ")");
                    assertEquals(rs.getLong(4), rs.getLong(2), "fan counter = online fan rows (seed " + seed + ")");
                    assertEquals(0, rs.getLong(5), "no negative shard");
                    assertEquals(0, rs.getLong(6), "after a heartbeat every online viewer's fan flag matches the graph");
                    assertTrue(rs.getLong(7) > 50, "the run touched most viewers");
                }
            }
            RoomStats s = rooms.stats(roomIds[i]);
            assertEquals(s.online(), rooms.viewers(roomIds[i], false, null, 1000).size());
            assertEquals(s.onlineFans(), rooms.viewers(roomIds[i], true, null, 1000).size());
            rooms.close(roomIds[i], anchors[i]);
        }
        // a deadlock is retried or logged, so the counts alone would not show one
        assertEquals(List.of(), deadlocks.detected(), "deadlocks PostgreSQL detected during the run (seed " + seed + ")");
    }

    /**
     * An enter takes its counter shards once, in order, after all of its viewer rows, so two enters
     * that share shards but no viewer cannot deadlock. Enter A's viewers fall in shards 0, 1 and 5,
     * enter B's in 1 and 5; shard 0 is held by a third transaction. A waits for shard 0 holding no
     * shard, so B goes through. A shard taken out of order (an upsert's two trigger passes: updated
     * rows, then inserted ones) would leave A holding 5, B waiting for it holding 1, and A and B in a
     * deadlock once shard 0 is free.
     */
    @Test
    void enterTakesCounterShardsInOnePassAfterItsViewers() throws Exception {
        long anchor = anchor();
        String room = room();
        rooms.open(room, anchor, null);
        long y = viewerInShard(5);
        long q = viewerInShard(1);
        rooms.enter(room, List.of(y, q));
        rooms.leave(room, List.of(y, q)); // rows that exist offline: entering again counts them
        List<Long> a = List.of(y, viewerInShard(0), viewerInShard(1));
        List<Long> b = List.of(q, viewerInShard(5));
        long session = rooms.openSession(room).id();
        LockOrder.Outcome<List<Viewer>, List<Viewer>> entered = LockOrder.secondPassesWhileFirstWaits(db,
                "SELECT pg_backend_pid() FROM room_count WHERE session_id = ? AND shard = 0 FOR UPDATE", List.of(session),
                () -> rooms.enter(room, a), () -> rooms.enter(room, b));
        assertEquals(b, entered.second().stream().map(Viewer::uid).toList(), "B entered while A waited");
        assertEquals(a.stream().sorted().toList(), entered.first().stream().map(Viewer::uid).toList());
        assertCounts(5, 0, stats(room));
        assertEquals(2, rooms.viewer(room, y).orElseThrow().entries(), "y entered twice");
        assertEquals(1, rooms.viewer(room, a.get(1)).orElseThrow().entries(), "a new viewer entered once");
        rooms.close(room, anchor);
    }

    /** A new viewer uid whose counter shard is {@code shard}. */
    static long viewerInShard(int shard) {
        long uid = viewer();
        while ((uid & 7) != shard) {
            uid = viewer();
        }
        return uid;
    }

    @Test
    void fansInEveryAndInAnyOfTheLastSessions() throws Exception {
        long seed = Long.getLong("roost.seed", System.nanoTime());
        System.out.println("LiveRoomInContainerIT.fansInEveryAndInAnyOfTheLastSessions seed=" + seed + " (-Droost.seed=)");
        Random random = new Random(seed);
        long anchor = anchor();
        String room = room();
        long[] people = LongStream.range(0, 40).map(i -> viewer()).toArray();
        Set<Long> fans = new HashSet<>();
        for (long p : people) {
            if (random.nextInt(3) > 0) {
                graph.follow(p, anchor);
                fans.add(p);
            }
        }
        List<Set<Long>> present = new ArrayList<>();
        for (int s = 0; s < 5; s++) {
            rooms.open(room, anchor, "session " + s);
            Set<Long> came = new TreeSet<>();
            for (long p : people) {
                if (random.nextInt(4) > 0) {
                    came.add(p);
                }
            }
            rooms.enter(room, came);
            List<Long> leaving = came.stream().filter(p -> random.nextBoolean()).toList();
            if (!leaving.isEmpty()) {
                rooms.leave(room, leaving); // who left early was still there
            }
            present.add(came);
            rooms.close(room, anchor);
        }
        List<Long> lastThree = rooms.recentSessions(room, 3);
        assertEquals(3, lastThree.size());
        Set<Long> every = new TreeSet<>(fans);
        Set<Long> any = new TreeSet<>();
        for (Set<Long> came : present.subList(2, 5)) {
            every.retainAll(came);
            came.stream().filter(fans::contains).forEach(any::add);
        }
        assertEquals(List.copyOf(every), pagedLoyal(lastThree, true), "intersection (seed " + seed + ")");
        assertEquals(List.copyOf(any), pagedLoyal(lastThree, false), "union (seed " + seed + ")");
        for (LoyalFan f : rooms.loyalFans(lastThree, true, null, 100)) {
            assertEquals(3, f.sessions());
        }
    }

    /** All pages of loyal fans, 7 at a time, to exercise the keyset. */
    List<Long> pagedLoyal(List<Long> sessions, boolean all) {
        List<Long> uids = new ArrayList<>();
        Long after = null;
        while (true) {
            List<LoyalFan> page = rooms.loyalFans(sessions, all, after, 7);
            page.forEach(f -> uids.add(f.uid()));
            if (page.size() < 7) {
                return uids;
            }
            after = page.get(page.size() - 1).uid();
        }
    }

    @Test
    void closingABigRoomDoesNotStallAnother() throws Exception {
        long bigAnchor = anchor();
        long smallAnchor = anchor();
        String big = room();
        String small = room();
        rooms.open(big, bigAnchor, null);
        rooms.open(small, smallAnchor, null);
        // statistics from before the room filled, as on a server whose big room came between two
        // runs of autovacuum: the planner takes the session for a handful of rows
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement("ANALYZE room_viewer")) {
            ps.execute();
        }
        int viewers = 20_000;
        long first = VIEWER_IDS.getAndAdd(viewers) + 1;
        for (int from = 0; from < viewers; from += LiveRooms.MAX_BATCH) {
            rooms.enter(big, LongStream.range(first + from, first + from + LiveRooms.MAX_BATCH).boxed().toList());
        }
        List<Long> smallViewers = List.of(viewer(), viewer(), viewer());
        rooms.enter(small, smallViewers);
        // the viewer timeout is 4 s in the tests: refresh everyone, so the close is what clears them
        for (int from = 0; from < viewers; from += LiveRooms.MAX_BATCH) {
            rooms.heartbeat(big, LongStream.range(first + from, first + from + LiveRooms.MAX_BATCH).boxed().toList());
        }
        heartbeats.flush();
        assertEquals(viewers, stats(big).online());

        long sessionId = rooms.openSession(big).id();
        RoomSession closed = rooms.close(big, bigAnchor);
        assertEquals(viewers, closed.online());
        long started = System.nanoTime();
        long worst = 0;
        int polls = 0;
        while (!rooms.session(big, sessionId).cleared()) {
            long t = System.nanoTime();
            rooms.heartbeat(small, smallViewers);
            rooms.anchorHeartbeat(small, smallAnchor);
            assertEquals(3, stats(small).online());
            rooms.enter(small, List.of(viewer()));
            rooms.leave(small, List.of(VIEWER_IDS.get()));
            worst = Math.max(worst, System.nanoTime() - t);
            polls++;
            assertTrue(System.nanoTime() - started < Duration.ofSeconds(60).toNanos(), "clearing 20,000 viewers took over a minute");
        }
        System.out.printf("closed a room of %d viewers: cleared in %d ms; meanwhile %d stats+enter+leave rounds on another room, worst %.1f ms%n",
                viewers, (System.nanoTime() - started) / 1_000_000, polls, worst / 1e6);
        assertTrue(polls > 0);
        assertTrue(worst < Duration.ofSeconds(1).toNanos(), "another room stalled for " + worst / 1_000_000 + " ms");
        assertEquals(List.of(), store.viewers(sessionId, false, null, 10));
        rooms.anchorHeartbeat(small, smallAnchor);
        rooms.close(small, smallAnchor);
    }
}
