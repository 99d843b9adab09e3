package io.roost.bench;

import io.roost.presence.rtc.AgoraSignature;
import io.roost.presence.rtc.MemberTransitions;
import io.roost.presence.rtc.NcsNotice;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Load for the NCS webhook: signed single-event POSTs from N closed-loop keep-alive connections
 * (prepared request bytes, see {@link RawHttp}), with ~30 %
 * duplicate deliveries and local reordering; reports durable events/s and latency, then checks
 * every (channel, uid) against the highest-clientSeq oracle. Run by bench/rtc-webhook.sh.
 */
public final class RtcWebhookBench {

    public static void main(String[] args) throws Exception {
        Map<String, String> o = BenchArgs.parse(args);
        String url = o.getOrDefault("url", "http://127.0.0.1:8080");
        String secret = o.getOrDefault("secret", "bench-secret");
        String admin = o.getOrDefault("admin", "admin:bench-admin-password");
        int connections = Integer.parseInt(o.getOrDefault("connections", "64"));
        int events = Integer.parseInt(o.getOrDefault("events", "120000"));
        int users = Integer.parseInt(o.getOrDefault("users", "5000"));
        int channels = Integer.parseInt(o.getOrDefault("channels", "50"));
        double duplicates = Double.parseDouble(o.getOrDefault("duplicates", "0.3"));
        long seed = Long.parseLong(o.getOrDefault("seed", Long.toString(System.nanoTime())));
        System.out.printf("seed=%d connections=%d events=%d users=%d channels=%d duplicates=%.0f%%%n", seed, connections,
                events, users, channels, duplicates * 100);

        Random random = new Random(seed);
        String run = "b" + Long.toHexString(seed);
        int window = Integer.parseInt(o.getOrDefault("window", "5000"));
        List<NcsNotice> unique = notices(random, run, events, users, channels);
        List<NcsNotice> deliveries = deliveries(random, unique, duplicates, window);

        // Warm-up on a stream of its own (other channels), not timed: after a start WildFly's JIT
        // compilers take most of a core for half a minute or more, which is not the steady state.
        URI base = URI.create(url);
        int warmupSeconds = Integer.parseInt(o.getOrDefault("warmup-seconds", "40"));
        List<NcsNotice> warm = notices(random, run + "w", Math.max(1, warmupSeconds) * 15_000, users, channels);
        Load warmup = drive(base, requests(base, secret, deliveries(random, warm, duplicates, window)), connections,
                System.nanoTime() + warmupSeconds * 1_000_000_000L);
        System.out.printf("WARMUP requests=%d seconds=%.2f requests_per_s=%.0f non200=%d%n", warmup.requests(),
                warmup.seconds(), warmup.requests() / warmup.seconds(), warmup.failures());

        System.out.printf("measuring %d deliveries%n", deliveries.size());
        Load load = drive(base, requests(base, secret, deliveries), connections, Long.MAX_VALUE);
        long[] sorted = Arrays.copyOf(load.latency(), load.requests());
        Arrays.sort(sorted);
        System.out.printf("RESULT requests=%d seconds=%.2f requests_per_s=%.0f p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f non200=%d%n",
                load.requests(), load.seconds(), load.requests() / load.seconds(), sorted[sorted.length / 2] / 1e6,
                sorted[(int) (sorted.length * 0.90)] / 1e6, sorted[(int) (sorted.length * 0.99)] / 1e6,
                sorted[sorted.length - 1] / 1e6, load.failures());

        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        // Correctness: every pair in the state of its highest clientSeq.
        Map<String, MemberTransitions.State> expected = new HashMap<>();
        List<NcsNotice> bySeq = new ArrayList<>(unique);
        bySeq.sort((a, b) -> Long.compare(a.clientSeq(), b.clientSeq()));
        for (NcsNotice n : bySeq) {
            expected.merge(n.channelName() + "/" + n.uid(), MemberTransitions.apply(null, n, null),
                    (old, x) -> MemberTransitions.apply(old, n, null));
        }
        String auth = "Basic " + Base64.getEncoder().encodeToString(admin.getBytes(StandardCharsets.UTF_8));
        int mismatches = 0;
        int checked = 0;
        for (int c = 0; c < channels; c++) {
            String channel = run + "-ch" + c;
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url + "/api/v1/presence/channels/"
                    + channel + "/members?limit=10000")).header("Authorization", auth).build(), HttpResponse.BodyHandlers.ofString());
            Map<Long, JsonObject> actual = new HashMap<>();
            if (r.statusCode() == 200) {
                Json.createReader(new StringReader(r.body())).readObject().getJsonArray("members")
                        .forEach(m -> actual.put(m.asJsonObject().getJsonNumber("uid").longValue(), m.asJsonObject()));
            }
            for (var e : expected.entrySet()) {
                if (!e.getKey().startsWith(channel + "/")) {
                    continue;
                }
                checked++;
                JsonObject got = actual.get(Long.parseLong(e.getKey().substring(channel.length() + 1)));
                MemberTransitions.State want = e.getValue();
                boolean ok = got == null ? !want.online()
                        : got.getBoolean("online") == want.online() && got.getJsonNumber("clientSeq").longValue() == want.clientSeq();
                if (!ok) {
                    mismatches++;
                }
            }
        }
        System.out.printf("CHECK pairs=%d mismatches=%d%n", checked, mismatches);
        HttpResponse<String> stats = http.send(HttpRequest.newBuilder(URI.create(url + "/api/v1/presence/rtc/stats"))
                .header("Authorization", auth).build(), HttpResponse.BodyHandlers.ofString());
        System.out.println("SERVER " + stats.body());
        System.exit(mismatches == 0 && load.failures() == 0 ? 0 : 1);
    }

    /** Per-user histories: each event a user's next clientSeq (gaps of 1-3), random type, channel by uid. */
    static List<NcsNotice> notices(Random random, String run, int events, int users, int channels) {
        long[] seq = new long[users];
        int[] types = {103, 104, 105, 106, 107, 108, 111, 112};
        long ts = System.currentTimeMillis() / 1000;
        List<NcsNotice> unique = new ArrayList<>(events);
        for (int i = 0; i < events; i++) {
            int u = random.nextInt(users);
            seq[u] += 1 + random.nextInt(3);
            unique.add(new NcsNotice(run + "-" + i, types[random.nextInt(types.length)], 0, run + "-ch" + (u % channels),
                    u + 1L, seq[u], ts, 1, 3, null, null));
        }
        return unique;
    }

    /**
     * The notices plus {@code duplicates} × as many redeliveries, shuffled within windows of
     * {@code window} deliveries, so an event arrives up to a few seconds early or late, as with NCS retries.
     */
    static List<NcsNotice> deliveries(Random random, List<NcsNotice> unique, double duplicates, int window) {
        List<NcsNotice> deliveries = new ArrayList<>(unique);
        for (int i = 0; i < (int) (unique.size() * duplicates); i++) {
            deliveries.add(unique.get(random.nextInt(unique.size())));
        }
        for (int from = 0; from < deliveries.size(); from += window) {
            Collections.shuffle(deliveries.subList(from, Math.min(deliveries.size(), from + window)), random);
        }
        return deliveries;
    }

    /** Each delivery as the bytes of a signed NCS POST (Agora-Signature-V2). */
    static byte[][] requests(URI base, String secret, List<NcsNotice> deliveries) {
        String host = base.getHost() + ":" + base.getPort();
        byte[][] requests = new byte[deliveries.size()][];
        for (int i = 0; i < requests.length; i++) {
            NcsNotice n = deliveries.get(i);
            byte[] body = ("{\"noticeId\":\"" + n.noticeId() + "\",\"productId\":1,\"eventType\":" + n.eventType()
                    + ",\"notifyMs\":" + System.currentTimeMillis() + ",\"payload\":{\"channelName\":\"" + n.channelName()
                    + "\",\"uid\":" + n.uid() + ",\"clientSeq\":" + n.clientSeq() + ",\"ts\":" + n.ts()
                    + ",\"platform\":1,\"clientType\":3}}").getBytes(StandardCharsets.UTF_8);
            requests[i] = RawHttp.post(host, "/api/v1/webhooks/agora", "Content-Type: application/json\r\nAgora-Signature-V2: "
                    + AgoraSignature.hmacHex("HmacSHA256", secret, body) + "\r\n", body);
        }
        return requests;
    }

    record Load(int requests, double seconds, long failures, long[] latency) {
    }

    /** Sends the requests in order from closed-loop connections until all are sent or the deadline passes. */
    static Load drive(URI base, byte[][] requests, int connections, long deadlineNanos) throws Exception {
        long[] latency = new long[requests.length];
        AtomicInteger next = new AtomicInteger();
        AtomicInteger sent = new AtomicInteger();
        AtomicLong failures = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(connections);
        List<java.util.concurrent.Future<?>> workers = new ArrayList<>();
        long begin = System.nanoTime();
        for (int t = 0; t < connections; t++) {
            workers.add(pool.submit(() -> {
                RawHttp connection = new RawHttp(base.getHost(), base.getPort());
                try {
                    for (int i; System.nanoTime() < deadlineNanos && (i = next.getAndIncrement()) < requests.length; ) {
                        long start = System.nanoTime();
                        try {
                            if (connection.exchange(requests[i]) != 200) {
                                failures.incrementAndGet();
                            }
                        } catch (java.io.IOException e) {
                            failures.incrementAndGet();
                            connection.close();
                            connection = new RawHttp(base.getHost(), base.getPort());
                        }
                        latency[sent.getAndIncrement()] = System.nanoTime() - start;
                    }
                } finally {
                    connection.close();
                }
                return null;
            }));
        }
        for (var w : workers) {
            w.get();
        }
        pool.shutdown();
        return new Load(sent.get(), (System.nanoTime() - begin) / 1e9, failures.get(), latency);
    }
}
