package io.roost.it.gateway;

import io.roost.it.InContainer;
import io.roost.presence.session.DeviceRoute;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.Database;
import io.roost.presence.session.DeviceSessions;
import io.roost.presence.session.DeviceSessions.Login;
import io.roost.presence.session.DeviceSessions.LoginRequest;
import io.roost.presence.store.RouteStore;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Logins in batches ({@link DeviceSessions#loginAll}, what the gateway's group commit calls): a
 * batch ends as if its logins ran one after another, under each device type's policy (the server
 * runs with {@code ROOST_SESSION_POLICIES=tv=refuse-new,watch=allow-many}, pom.xml), and concurrent
 * batches over the same slots leave exactly one session per slot, every other accepted login
 * displaced exactly once.
 */
@InContainer
class LoginBatchInContainerIT {

    @Inject
    DeviceSessions sessions;

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource db;

    /** Route uids need no account: far above the ids the snowflake generator hands out in tests. */
    static final AtomicLong UIDS = new AtomicLong(8_000_000_000L + (System.nanoTime() % 1_000_000L) * 1_000L);
    static final AtomicLong CONNECTIONS = new AtomicLong(System.nanoTime());

    static String connection() {
        return "lb-" + CONNECTIONS.incrementAndGet();
    }

    @Test
    void aBatchEndsAsIfItsLoginsRanOneAfterAnother() throws Exception {
        long uid = UIDS.incrementAndGet();
        long other = UIDS.incrementAndGet();
        long versionBefore = presenceVersion(uid);
        List<LoginRequest> batch = List.of(
                new LoginRequest(uid, "android", "a1", connection()),
                new LoginRequest(uid, "android", "a2", connection()),   // kick-old: replaces the first
                new LoginRequest(other, "android", "o1", connection()),
                new LoginRequest(uid, "tv", "t1", connection()),
                new LoginRequest(uid, "tv", "t2", connection()),        // refuse-new: refused
                new LoginRequest(uid, "watch", "w1", connection()),
                new LoginRequest(uid, "watch", "w2", connection()));    // allow-many: both stay
        List<Login> outcomes = sessions.loginAll(batch);

        assertEquals(batch.size(), outcomes.size());
        assertTrue(outcomes.get(0).accepted());
        assertTrue(outcomes.get(0).displaced().isEmpty());
        assertTrue(outcomes.get(1).accepted());
        assertEquals(batch.get(0).connectionId(), outcomes.get(1).displaced().orElseThrow().connectionId(),
                "the second android login displaces the first of the same batch");
        assertTrue(outcomes.get(2).accepted());
        assertTrue(outcomes.get(3).accepted());
        assertFalse(outcomes.get(4).accepted(), "tv refuses a second login");
        assertTrue(outcomes.get(5).accepted());
        assertTrue(outcomes.get(6).accepted());

        Map<String, Set<String>> routes = routesByType(uid);
        assertEquals(Map.of("android", Set.of(batch.get(1).connectionId()), "tv", Set.of(batch.get(3).connectionId()),
                "watch", Set.of(batch.get(5).connectionId(), batch.get(6).connectionId())), routes);
        assertEquals(Map.of("android", Set.of(batch.get(2).connectionId())), routesByType(other));
        assertEquals(versionBefore + 1, presenceVersion(uid), "one presence change per user per batch");

        // The displaced and the refused connection hold nothing: their logout removes nothing.
        assertTrue(sessions.logout(batch.get(0).connectionId()).isEmpty());
        assertTrue(sessions.logout(batch.get(4).connectionId()).isEmpty());
        assertEquals(batch.get(1).connectionId(), sessions.logout(batch.get(1).connectionId()).orElseThrow().connectionId());
    }

    @Test
    void concurrentBatchesLeaveOneSessionPerSlotAndDisplaceEveryOtherLoginOnce() throws Exception {
        long seed = System.nanoTime();
        System.out.println("LoginBatchInContainerIT seed=" + seed);
        long[] uids = {UIDS.incrementAndGet(), UIDS.incrementAndGet(), UIDS.incrementAndGet()};
        String[] types = {"android", "ios", "tv"};
        int threads = 8;
        int batchesPerThread = 25;
        Map<String, Set<String>> accepted = new ConcurrentHashMap<>();   // slot -> accepted connections
        Map<String, List<String>> displaced = new ConcurrentHashMap<>(); // slot -> connections displaced
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Random random = new Random(seed + t);
                done.add(pool.submit(() -> {
                    for (int b = 0; b < batchesPerThread; b++) {
                        List<LoginRequest> batch = new ArrayList<>();
                        for (int i = 1 + random.nextInt(6); i > 0; i--) {
                            batch.add(new LoginRequest(uids[random.nextInt(uids.length)], types[random.nextInt(types.length)],
                                    "d", connection()));
                        }
                        List<Login> outcomes = sessions.loginAll(batch);
                        for (int i = 0; i < batch.size(); i++) {
                            String slot = batch.get(i).uid() + "/" + batch.get(i).deviceType();
                            if (outcomes.get(i).accepted()) {
                                accepted.computeIfAbsent(slot, s -> ConcurrentHashMap.newKeySet()).add(batch.get(i).connectionId());
                                outcomes.get(i).displaced().ifPresent(h -> displaced.computeIfAbsent(slot,
                                        s -> java.util.Collections.synchronizedList(new ArrayList<>())).add(h.connectionId()));
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(); // no batch may fail (a deadlock between batches would surface here)
            }
        } finally {
            pool.shutdownNow();
        }
        for (long uid : uids) {
            Map<String, Set<String>> routes = routesByType(uid);
            for (String type : types) {
                String slot = uid + "/" + type;
                Set<String> in = accepted.getOrDefault(slot, Set.of());
                if (in.isEmpty()) {
                    continue;
                }
                Set<String> holder = routes.get(type);
                assertEquals(1, holder.size(), "exactly one session for " + slot + " (seed " + seed + ")");
                if (type.equals("tv")) {
                    assertEquals(holder, in, "refuse-new: only the first login got in (seed " + seed + ")");
                    continue;
                }
                List<String> gone = displaced.getOrDefault(slot, List.of());
                assertEquals(in.size() - 1, gone.size(), "every accepted login but the holder displaced (seed " + seed + ")");
                Set<String> all = new HashSet<>(gone);
                assertEquals(gone.size(), all.size(), "nobody displaced twice (seed " + seed + ")");
                all.addAll(holder);
                assertEquals(in, all, "displaced + holder = accepted (seed " + seed + ")");
            }
        }
    }

    @Test
    void theRoutesOfALostNodeExpireAndTheLiveNodesStay() throws Exception {
        long onLostNode = UIDS.incrementAndGet();
        long onUnknownNode = UIDS.incrementAndGet();
        long onThisNode = UIDS.incrementAndGet();
        int lostNode = 9001; // registered, silent for an hour
        int unknownNode = 9002; // never registered
        try (Connection c = db.getConnection()) {
            Database.execute(c, """
                    INSERT INTO presence_node (node_id, address, started_at, heartbeat_at)
                    VALUES (?, 'lost:8080', now() - interval '2 hours', now() - interval '1 hour')
                    ON CONFLICT (node_id) DO UPDATE SET heartbeat_at = now() - interval '1 hour'""", lostNode);
            Database.execute(c, "DELETE FROM presence_node WHERE node_id = ?", unknownNode);
            Database.execute(c, """
                    INSERT INTO presence_device_route (uid, device_type, session_key, node_id, connection_id, device_id, epoch)
                    VALUES (?, 'android', '', ?, ?, 'd', 1)""", onLostNode, lostNode, connection());
            Database.execute(c, """
                    INSERT INTO presence_device_route (uid, device_type, session_key, node_id, connection_id, device_id, epoch)
                    VALUES (?, 'ios', '', ?, ?, 'd', 1)""", onUnknownNode, unknownNode, connection());
        }
        assertTrue(sessions.loginAll(List.of(new LoginRequest(onThisNode, "android", "d", connection()))).get(0).accepted());

        sessions.expire(); // the node timer may have expired them first: either way they are gone now
        assertTrue(sessions.routesOf(onLostNode).isEmpty(), "a node silent past the timeout leaves nobody online");
        assertTrue(sessions.routesOf(onUnknownNode).isEmpty(), "nor does a node that never registered");
        assertEquals(Set.of("android"), routesByType(onThisNode).keySet(), "this node's routes stay");
        assertEquals(Set.of(onThisNode), sessions.onlineAmong(List.of(onLostNode, onUnknownNode, onThisNode)));
        sessions.logout(sessions.routesOf(onThisNode).get(0).connectionId());
    }

    private Map<String, Set<String>> routesByType(long uid) {
        Map<String, Set<String>> byType = new HashMap<>();
        for (DeviceRoute r : sessions.routesOf(uid)) {
            byType.computeIfAbsent(r.deviceType(), t -> new HashSet<>()).add(r.connectionId());
        }
        return byType;
    }

    private long presenceVersion(long uid) throws Exception {
        try (Connection c = db.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT version FROM presence_user WHERE uid = ?")) {
            ps.setLong(1, uid);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }
}
