package io.roost.it.presence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.InContainer;
import io.roost.presence.MqttPresence;
import io.roost.presence.mqtt.ConnectionRules;
import io.roost.presence.mqtt.MqttStatusEvent.Type;
import io.roost.presence.mqtt.MqttStatusEvent;
import io.roost.presence.store.MqttStore;
import jakarta.annotation.Resource;
import jakarta.ejb.EJB;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * MQTT batches applied by concurrent transactions that share clients: what two nodes consuming the
 * status topic do (on one node the lanes keep a client's batches apart, so this calls the store
 * directly, bypassing them). Every client must end in the oracle's state, every fact must be in
 * the history exactly once, and no transaction may fail — a deadlock or a missed fact would show.
 */
@InContainer
class MqttConcurrentBatchesInContainerIT {

    @EJB
    MqttStore store;

    @Inject
    MqttPresence presence;

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource db;

    /** A close of a known connection: one more event, and the oracle's connection learns it. */
    static void fact(List<MqttStatusEvent> unique, Map<String, ConnectionRules.Connection> connections, String clientId,
                     String group, String channel, Type type, long time) {
        unique.add(new MqttStatusEvent(clientId, group, channel, type, time, null));
        connections.computeIfPresent(channel, (ch, c) -> c.with(type, time));
    }

    /** What a run applies: the unique facts, every client's connections as the oracle knows them, the deliveries. */
    record Stream(String group, List<MqttStatusEvent> unique, Map<String, Map<String, ConnectionRules.Connection>> oracle,
                  List<MqttStatusEvent> deliveries) {
    }

    /**
     * Each client flaps over a few connections: some close cleanly, some take over the previous one
     * (the old tcpclean stamped just after the new connect), some lose their close. 30 % of the
     * facts are delivered twice, and all are shuffled; with {@code connectFirst}, a connection's
     * first connect is still delivered before its closes.
     */
    static Stream stream(long seed, int clients, boolean connectFirst) {
        Random random = new Random(seed);
        String group = "GID_it" + Long.toHexString(seed & 0xffffffL);
        List<MqttStatusEvent> unique = new ArrayList<>();
        Map<String, Map<String, ConnectionRules.Connection>> oracle = new LinkedHashMap<>();
        for (int i = 0; i < clients; i++) {
            String clientId = group + "@@@device-" + i;
            Map<String, ConnectionRules.Connection> connections = new LinkedHashMap<>();
            long time = 1_700_000_000_000L + random.nextInt(1_000);
            String previous = null;
            for (int k = 1 + random.nextInt(5); k > 0; k--) {
                String channel = Long.toHexString(random.nextLong());
                time += 1 + random.nextInt(50);
                unique.add(new MqttStatusEvent(clientId, group, channel, Type.CONNECT, time, "10.0.0.1:" + (1000 + k)));
                connections.put(channel, ConnectionRules.Connection.empty(channel).with(Type.CONNECT, time));
                if (previous != null && random.nextInt(4) == 0) { // takeover: the old connection closes after the new connect
                    fact(unique, connections, clientId, group, previous, Type.TCPCLEAN, time + 1);
                }
                int close = random.nextInt(6);
                if (close < 4) {
                    time += 1 + random.nextInt(50);
                    if (close < 2) {
                        fact(unique, connections, clientId, group, channel, Type.DISCONNECT, time);
                    }
                    fact(unique, connections, clientId, group, channel, Type.TCPCLEAN, time + 1);
                    previous = null;
                } else {
                    previous = channel; // still open, or its close is lost
                }
            }
            oracle.put(clientId, connections);
        }
        List<MqttStatusEvent> deliveries = new ArrayList<>(unique);
        for (MqttStatusEvent e : unique) {
            if (random.nextInt(10) < 3) {
                deliveries.add(e); // at-least-once: a duplicate, maybe in another batch
            }
        }
        Collections.shuffle(deliveries, random);
        if (connectFirst) { // a close that comes before its connection's connect waits for it
            List<MqttStatusEvent> ordered = new ArrayList<>();
            Map<String, List<MqttStatusEvent>> waiting = new HashMap<>();
            Set<String> connected = new HashSet<>();
            for (MqttStatusEvent e : deliveries) {
                if (e.type() == Type.CONNECT) {
                    ordered.add(e);
                    if (connected.add(e.channelId())) {
                        ordered.addAll(waiting.getOrDefault(e.channelId(), List.of()));
                    }
                } else if (connected.contains(e.channelId())) {
                    ordered.add(e);
                } else {
                    waiting.computeIfAbsent(e.channelId(), ch -> new ArrayList<>()).add(e);
                }
            }
            deliveries = ordered;
        }
        return new Stream(group, unique, oracle, deliveries);
    }

    @Test
    void overlappingBatchesInConcurrentTransactionsEndInTheOracleState() throws Exception {
        long seed = System.nanoTime();
        System.out.println("MqttConcurrentBatchesInContainerIT seed=" + seed);
        Stream stream = stream(seed, 40, false);
        applyConcurrently(stream.deliveries(), 8, false, null);
        assertOracleStateAndHistory(stream, seed);
    }

    /**
     * The closed-connection purge (retention zero: every closed connection that is not its client's
     * newest goes at once) runs alongside the batches, and locks the clients of the rows it deletes
     * as ingestion does: no transaction may fail, every client still ends in the oracle's state, and
     * the duplicates of purged facts stay out of the history (the purge horizon). Each connection's
     * connect is delivered before its closes here: a close remembered without its connect is only
     * forgotten after the retention, and a zero retention would forget it at once.
     */
    @Test
    void thePurgeRunningAlongsideTheBatchesChangesNoState() throws Exception {
        long seed = System.nanoTime();
        System.out.println("MqttConcurrentBatchesInContainerIT purge seed=" + seed);
        Stream stream = stream(seed, 40, true);
        AtomicInteger purged = new AtomicInteger();
        // Each client's deliveries stay in order (clients split over the threads): a close in a later
        // batch than its connect must not commit first, or the zero retention could forget a
        // connection before its connect arrives. Clients still overlap each other and the purge.
        applyConcurrently(stream.deliveries(), 6, true, () -> purged.addAndGet(store.purgeClosedConnections(Duration.ZERO, 20)));
        assertOracleStateAndHistory(stream, seed);
        assertTrue(purged.get() > 0, "the purge ran into the batches (seed " + seed + ")");
    }

    /**
     * Small batches of every client at once, applied by {@code threads} transactions at a time, and
     * {@code alongside} (if any) run over and over by one more thread until they are done. With
     * {@code clientOrder}, each thread takes its own share of the clients, in delivery order.
     */
    void applyConcurrently(List<MqttStatusEvent> deliveries, int threads, boolean clientOrder, Runnable alongside)
            throws Exception {
        List<ConcurrentLinkedQueue<List<MqttStatusEvent>>> lanes = new ArrayList<>();
        for (int t = 0; t < (clientOrder ? threads : 1); t++) {
            int lane = t;
            List<MqttStatusEvent> share = deliveries.stream()
                    .filter(e -> !clientOrder || Math.floorMod(e.clientId().hashCode(), threads) == lane).toList();
            ConcurrentLinkedQueue<List<MqttStatusEvent>> queue = new ConcurrentLinkedQueue<>();
            for (int from = 0; from < share.size(); from += 12) {
                queue.add(List.copyOf(share.subList(from, Math.min(share.size(), from + 12))));
            }
            lanes.add(queue);
        }
        int others = alongside == null ? 0 : 1;
        CyclicBarrier start = new CyclicBarrier(threads + others);
        ExecutorService pool = Executors.newFixedThreadPool(threads + others);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            ConcurrentLinkedQueue<List<MqttStatusEvent>> batches = lanes.get(t % lanes.size());
            workers.add(pool.submit(() -> {
                start.await();
                for (List<MqttStatusEvent> batch; (batch = batches.poll()) != null; ) {
                    store.apply(batch, List.of());
                }
                return null;
            }));
        }
        if (alongside != null) {
            workers.add(pool.submit(() -> {
                start.await();
                while (lanes.stream().anyMatch(lane -> !lane.isEmpty())) {
                    alongside.run();
                }
                return null;
            }));
        }
        try {
            for (Future<?> w : workers) {
                w.get(); // a failed transaction (a deadlock) fails the test here
            }
        } finally {
            pool.shutdownNow();
        }
    }

    void assertOracleStateAndHistory(Stream stream, long seed) throws Exception {
        for (var client : stream.oracle().entrySet()) {
            boolean expected = ConnectionRules.online(client.getValue().values());
            assertEquals(expected, presence.client(client.getKey()).orElseThrow().online(),
                    client.getKey() + " (seed " + seed + ")");
        }
        try (Connection c = db.getConnection();
             PreparedStatement ps = c.prepareStatement("""
                     SELECT count(*), count(DISTINCT (client_id, channel_id, event_type)) FROM mqtt_event WHERE group_id = ?""")) {
            ps.setString(1, stream.group());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertEquals(stream.unique().size(), rs.getInt(2), "every fact in the history (seed " + seed + ")");
                assertEquals(stream.unique().size(), rs.getInt(1), "no fact twice in the history (seed " + seed + ")");
            }
        }
    }
}
