package io.roost.presence.mqtt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.roost.platform.metrics.Meters;
import io.roost.presence.PresenceMeters;
import io.roost.presence.store.MqttStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The group commit with lanes, against a store that only records what it is given: transactions
 * running at once never share a client, every caller returns only after all of its messages were
 * applied, and a failing message fails its own caller only.
 */
class MqttIngestTest {

    /** Records applied events; fails any batch holding a client named "poison". */
    static final class RecordingStore extends MqttStore {
        final Set<String> clientsInFlight = ConcurrentHashMap.newKeySet();
        final Set<String> applied = ConcurrentHashMap.newKeySet();
        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger mostAtOnce = new AtomicInteger();
        final List<String> overlaps = java.util.Collections.synchronizedList(new ArrayList<>());

        @Override
        public Applied apply(List<MqttStatusEvent> events, List<DeadLetter> deadLetters) {
            mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
            Set<String> mine = new java.util.HashSet<>();
            events.forEach(e -> mine.add(e.clientId()));
            try {
                for (String c : mine) {
                    if (!clientsInFlight.add(c)) {
                        overlaps.add(c);
                    }
                }
                Thread.sleep(2); // a transaction takes a while: callers pile up meanwhile
                if (mine.stream().anyMatch(c -> c.endsWith("@@@poison"))) {
                    throw new IllegalStateException("poisoned batch");
                }
                events.forEach(e -> applied.add(key(e.clientId(), e.channelId(), e.type().wire())));
                return new Applied(events.size(), 0);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } finally {
                clientsInFlight.removeAll(mine);
                running.decrementAndGet();
            }
        }
    }

    static String key(String client, String channel, String type) {
        return client + "/" + channel + "/" + type;
    }

    static MqttIngest ingest(RecordingStore store, int lanes) {
        MqttSettings settings = new MqttSettings();
        settings.transactions = lanes;
        settings.batchSize = 64;
        MqttIngest ingest = new MqttIngest();
        ingest.store = store;
        ingest.settings = settings;
        ingest.meters = PresenceMeters.over(Meters.over(new SimpleMeterRegistry()));
        ingest.init();
        return ingest;
    }

    static MqttIngest.Raw raw(String client, String channel, String type) {
        return new MqttIngest.Raw("m-" + channel + type, type, "{\"clientId\":\"GID_T@@@" + client + "\",\"channelId\":\""
                + channel + "\",\"time\":1700000000,\"eventType\":\"" + type + "\"}");
    }

    @Test
    void concurrentCallersNeverShareAClientAcrossRunningTransactionsAndReturnOnlyOnceApplied() throws Exception {
        long seed = System.nanoTime();
        System.out.println("MqttIngestTest seed=" + seed);
        RecordingStore store = new RecordingStore();
        MqttIngest ingest = ingest(store, 3);
        ExecutorService pool = Executors.newFixedThreadPool(24);
        List<Future<Integer>> callers = new ArrayList<>();
        AtomicInteger channel = new AtomicInteger();
        for (int t = 0; t < 24; t++) {
            Random random = new Random(seed + t);
            callers.add(pool.submit(() -> {
                int sent = 0;
                for (int round = 0; round < 40; round++) {
                    List<MqttIngest.Raw> batch = new ArrayList<>();
                    List<String> expected = new ArrayList<>();
                    for (int i = 0, n = 1 + random.nextInt(40); i < n; i++) {
                        String client = "d" + random.nextInt(50); // few clients: callers collide all the time
                        String ch = "c" + channel.incrementAndGet();
                        batch.add(raw(client, ch, "connect"));
                        expected.add(key("GID_T@@@" + client, ch, "connect"));
                    }
                    ingest.ingestMessages(batch);
                    for (String k : expected) {
                        assertTrue(store.applied.contains(k), "returned before " + k + " was applied (seed " + seed + ")");
                    }
                    sent += batch.size();
                }
                return sent;
            }));
        }
        int sent = 0;
        for (Future<Integer> f : callers) {
            sent += f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertEquals(0, store.overlaps.size(), "clients in two running transactions at once, e.g. "
                + store.overlaps.stream().limit(5).toList() + " (seed " + seed + ")");
        assertEquals(sent, store.applied.size());
        assertEquals(sent, ingest.stats().applied());
        assertTrue(store.mostAtOnce.get() >= 2, "lanes never ran at once: " + store.mostAtOnce.get());
        assertTrue(store.mostAtOnce.get() <= 3, "more transactions at once than lanes: " + store.mostAtOnce.get());
    }

    @Test
    void aFailingMessageFailsItsOwnCallerOnly() throws Exception {
        RecordingStore store = new RecordingStore();
        MqttIngest ingest = ingest(store, 2);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> good = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            int caller = t;
            good.add(pool.submit(() -> {
                for (int round = 0; round < 20; round++) {
                    ingest.ingestMessages(List.of(raw("d" + round % 5, "g" + caller + "x" + round, "connect"),
                            raw("e" + caller, "h" + caller + "x" + round, "tcpclean")));
                }
            }));
        }
        assertThrows(IllegalStateException.class,
                () -> ingest.ingestMessages(List.of(raw("poison", "p1", "connect"), raw("d1", "p2", "connect"))));
        for (Future<?> f : good) {
            f.get(60, TimeUnit.SECONDS); // none of them saw the poisoned batch's failure
        }
        pool.shutdown();
        assertEquals(8 * 20 * 2, store.applied.stream().filter(k -> !k.contains("/p")).count());
        assertTrue(store.applied.stream().noneMatch(k -> k.contains("poison")));
    }

    @Test
    void notificationsCountAsAppliedStaleOrDuplicateByWhatTheStoreFound() {
        io.micrometer.core.instrument.MeterRegistry registry = new SimpleMeterRegistry();
        MqttIngest ingest = ingest(new RecordingStore(), 1);
        ingest.store = new MqttStore() {
            @Override
            public Applied apply(List<MqttStatusEvent> events, List<DeadLetter> deadLetters) {
                return new Applied(3, 1); // of 5: 3 new facts, one of them of a superseded connection
            }
        };
        ingest.meters = PresenceMeters.over(Meters.over(registry));
        ingest.ingestMessages(List.of(raw("a", "c1", "connect"), raw("a", "c1", "connect"), raw("a", "c2", "connect"),
                raw("a", "c1", "tcpclean"), raw("a", "c1", "tcpclean")));
        java.util.function.ToDoubleFunction<String> events = outcome -> registry.get("roost.presence.mqtt.events")
                .tags("outcome", outcome).counter().count();
        assertEquals(2, events.applyAsDouble("applied"));
        assertEquals(1, events.applyAsDouble("stale"));
        assertEquals(2, events.applyAsDouble("duplicate"));
    }
}
