package io.roost.bench;

import io.roost.presence.mqtt.ConnectionRules;
import io.roost.presence.mqtt.MqttStatusEvent;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;

/**
 * MQTT status ingestion benchmark, two phases with the same seed (bench/mqtt-ingest.sh):
 * {@code --phase=produce} puts a warm-up stream and then the measured stream (each: connect/close
 * pairs over many client ids, 20 % duplicated, scrambled; the warm-up's clients in a group of
 * their own) on the broker before Roost runs; {@code --phase=measure} then times Roost's consumers
 * from the end of the warm-up to the last notification (and, cold, from the first), and checks
 * every client against the oracle (ConnectionRules).
 */
public final class MqttIngestBench {

    record Event(String clientId, String channelId, MqttStatusEvent.Type type, long time) {
        String json() {
            return "{\"clientId\":\"" + clientId + "\",\"time\":" + time + ",\"eventType\":\"" + type.wire()
                    + "\",\"channelId\":\"" + channelId + "\",\"clientIp\":\"10.1.2.3:4567\"}";
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = BenchArgs.parse(args);
        long seed = Long.parseLong(o.getOrDefault("seed", "1"));
        int target = Integer.parseInt(o.getOrDefault("events", "500000"));
        int clients = Integer.parseInt(o.getOrDefault("clients", "50000"));
        int warmupTarget = Integer.parseInt(o.getOrDefault("warmup", "250000"));
        double duplicates = Double.parseDouble(o.getOrDefault("duplicates", "0.2"));
        String topic = o.getOrDefault("topic", "GID_BENCH_MQTT");
        String group = "GID_BENCH" + Long.toHexString(seed).toUpperCase();
        String warmupGroup = "GID_WARM" + Long.toHexString(seed).toUpperCase();

        // The warm-up stream goes on the broker first, for clients of another group: the server starts
        // cold on the backlog, and the figure is the rate it sustains once its code is compiled.
        List<Event> warmup = histories(new Random(seed ^ WARMUP_SALT), warmupGroup,
                (int) (warmupTarget / (1 + duplicates)), clients);
        Random random = new Random(seed);
        List<Event> events = histories(random, group, (int) (target / (1 + duplicates)), clients);
        Map<String, Boolean> expected = oracle(events);
        expected.putAll(oracle(warmup));

        if (o.getOrDefault("phase", "produce").equals("produce")) {
            List<Event> deliveries = deliveries(warmup, duplicates, new Random(seed ^ WARMUP_SALT));
            int warmupMessages = deliveries.size();
            deliveries.addAll(deliveries(events, duplicates, random));
            DefaultMQProducer producer = new DefaultMQProducer("roost-bench-mqtt");
            producer.setNamesrvAddr(o.getOrDefault("namesrv", "127.0.0.1:19876"));
            producer.setVipChannelEnabled(false);
            producer.setMaxMessageSize(4 * 1024 * 1024);
            producer.start();
            long start = System.nanoTime();
            try {
                List<Message> batch = new ArrayList<>();
                for (Event e : deliveries) {
                    // Batches need one tag per message but one topic: fine, the consumer filters by tag.
                    batch.add(new Message(topic, e.type().wire(), e.json().getBytes(StandardCharsets.UTF_8)));
                    if (batch.size() == 200) {
                        producer.send(batch, 10_000);
                        batch = new ArrayList<>();
                    }
                }
                if (!batch.isEmpty()) {
                    producer.send(batch, 10_000);
                }
            } finally {
                producer.shutdown();
            }
            System.out.printf("PRODUCED seed=%d messages=%d warmup=%d unique=%d clients=%d online_expected=%d in %.1f s%n", seed,
                    deliveries.size(), warmupMessages, events.size() + warmup.size(), expected.size(),
                    expected.values().stream().filter(b -> b).count(), (System.nanoTime() - start) / 1e9);
            return;
        }

        // Measure: from the first applied notification to all of them (cold), and from the end of the
        // warm-up to the end (the figure: the sustained rate of a server whose code is compiled).
        String url = o.getOrDefault("url", "http://127.0.0.1:8080");
        String basic = "Basic " + Base64.getEncoder().encodeToString(
                o.getOrDefault("admin", "admin:bench-admin-password").getBytes(StandardCharsets.UTF_8));
        long total = Long.parseLong(o.get("messages"));
        long warmupMessages = Long.parseLong(o.getOrDefault("warmup-messages", "0"));
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        long first = 0; // the first poll that saw applied notifications: the rates count only those applied after it
        long firstApplied = 0;
        long applied = 0;
        long warmAt = 0; // when the warm-up had been applied
        long warmApplied = 0;
        long deadline = System.nanoTime() + 600_000_000_000L;
        String auth = null; // a bearer token once the server is up: a Basic check per poll would cost it a password hash
        while (System.nanoTime() < deadline) {
            JsonObject s;
            try {
                if (auth == null) {
                    auth = "Bearer " + Json.createReader(new StringReader(http.send(HttpRequest.newBuilder(
                                    URI.create(url + "/api/v1/auth/tokens")).header("Authorization", basic)
                            .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                            HttpResponse.BodyHandlers.ofString()).body())).readObject().getString("token");
                }
                s = get(http, url + "/api/v1/presence/mqtt/stats", auth);
            } catch (Exception notUpYet) {
                auth = null;
                Thread.sleep(500);
                continue;
            }
            applied = s.getJsonNumber("applied").longValue() + s.getJsonNumber("deadLetteredByThisNode").longValue();
            if (applied > 0 && first == 0) {
                first = System.nanoTime();
                firstApplied = applied;
            }
            if (warmAt == 0 && applied > 0 && applied >= warmupMessages) {
                warmAt = System.nanoTime();
                warmApplied = applied;
            }
            if (applied >= total) {
                break;
            }
            Thread.sleep(100);
        }
        long end = System.nanoTime();
        long endMs = System.currentTimeMillis();
        double seconds = (end - first) / 1e9;
        double warmSeconds = (end - warmAt) / 1e9;
        System.out.printf("RESULT messages=%d warmup=%d warm_seconds=%.1f events_per_s=%.0f cold_seconds=%.1f cold_events_per_s=%.0f%n",
                applied - warmApplied, warmApplied, warmSeconds, (applied - warmApplied) / warmSeconds, seconds, (applied - firstApplied) / seconds);
        if (firstApplied >= total) {
            // The consumers start while the deployment is still starting, before the first poll can be answered.
            System.out.printf("NOTE all %d notifications were applied before the first poll was answered (Roost applies the"
                    + " backlog while it is still starting): no rate measured; produce a larger backlog (--warmup, --events)%n", applied);
        }
        // the window the figure covers, for the script's CPU samples
        System.out.printf("WINDOW from_ms=%d to_ms=%d messages=%d%n", endMs - (end - warmAt) / 1_000_000, endMs,
                applied - warmApplied);

        Map<String, Boolean> actual = new HashMap<>();
        for (String g : List.of(group, warmupGroup)) {
            actual.putAll(clientsOnline(http, url, auth, g));
        }
        long wrong = expected.entrySet().stream().filter(e -> !e.getValue().equals(actual.get(e.getKey()))).count();
        System.out.printf("CHECK clients=%d online=%d wrong=%d%n", expected.size(),
                actual.values().stream().filter(b -> b).count(), wrong);
        System.exit(wrong == 0 ? 0 : 1);
    }

    private static final long WARMUP_SALT = 0x5741524DL; // "WARM"

    /**
     * Per client, connections with connect, then (mostly) disconnect and/or tcpclean; takeovers
     * stamp the old tcpclean after the next connect; some tcpcleans are lost.
     */
    static List<Event> histories(Random random, String group, int unique, int clients) {
        List<Event> events = new ArrayList<>();
        long[] clock = new long[clients];
        int[] connection = new int[clients];
        while (events.size() < unique) {
            int c = random.nextInt(clients);
            String clientId = group + "@@@d" + c;
            clock[c] += 1 + random.nextInt(5);
            String channel = Integer.toHexString(c) + "x" + (connection[c]++);
            events.add(new Event(clientId, channel, MqttStatusEvent.Type.CONNECT, 1_700_000_000L + clock[c]));
            int fate = random.nextInt(10);
            if (fate < 4) {
                events.add(new Event(clientId, channel, MqttStatusEvent.Type.DISCONNECT, 1_700_000_001L + clock[c]));
            }
            if (fate < 8) {
                events.add(new Event(clientId, channel, MqttStatusEvent.Type.TCPCLEAN,
                        1_700_000_000L + clock[c] + (fate < 2 ? 9 : 2)));
            }
        }
        return events;
    }

    /** The events as the broker gets them: a share duplicated, all scrambled. */
    static List<Event> deliveries(List<Event> events, double duplicates, Random random) {
        List<Event> deliveries = new ArrayList<>(events);
        for (int i = 0; i < (int) (events.size() * duplicates); i++) {
            deliveries.add(events.get(random.nextInt(events.size())));
        }
        Collections.shuffle(deliveries, random);
        return deliveries;
    }

    static JsonObject get(HttpClient http, String url, String auth) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", auth).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(url + " -> " + r.statusCode() + " " + r.body());
        }
        return Json.createReader(new StringReader(r.body())).readObject();
    }

    /** Every client of the group as Roost has it: client id → online. */
    static Map<String, Boolean> clientsOnline(HttpClient http, String url, String auth, String group) throws Exception {
        Map<String, Boolean> online = new HashMap<>();
        String cursor = "";
        while (cursor != null) {
            JsonObject page = get(http, url + "/api/v1/presence/mqtt/clients?limit=10000&groupId=" + group
                    + (cursor.isEmpty() ? "" : "&cursor=" + java.net.URLEncoder.encode(cursor, StandardCharsets.UTF_8)), auth);
            page.getJsonArray("clients").forEach(c -> online.put(c.asJsonObject().getString("clientId"),
                    c.asJsonObject().getBoolean("online")));
            cursor = page.isNull("nextCursor") ? null : page.getString("nextCursor");
        }
        return online;
    }

    static Map<String, Boolean> oracle(List<Event> events) {
        Map<String, Map<String, ConnectionRules.Connection>> byClient = new LinkedHashMap<>();
        for (Event e : events) {
            byClient.computeIfAbsent(e.clientId(), k -> new LinkedHashMap<>())
                    .merge(e.channelId(), ConnectionRules.Connection.empty(e.channelId()).with(e.type(), e.time()),
                            (old, x) -> old.with(e.type(), e.time()));
        }
        Map<String, Boolean> online = new LinkedHashMap<>();
        byClient.forEach((id, conns) -> online.put(id, ConnectionRules.online(conns.values())));
        return online;
    }
}
