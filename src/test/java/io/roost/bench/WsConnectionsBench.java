package io.roost.bench;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Many logged-in device connections on one node: registers N users (anonymous registration with a
 * device: one request each, no password hashing), then opens N WebSockets with a bounded number in
 * flight (hello → login) and reports logins/s; holds them with a heartbeat every 30 s per
 * connection (staggered) and reports heartbeat round trips; checks a sample is online; prints
 * {@code READY} when all are connected (the script measures the server's memory then) and a final
 * {@code RESULT} line. Run by bench/ws-connections.sh.
 */
public final class WsConnectionsBench {

    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    public static void main(String[] args) throws Exception {
        Map<String, String> o = BenchArgs.parse(args);
        String url = o.getOrDefault("url", "http://127.0.0.1:8080");
        String admin = "Basic " + Base64.getEncoder().encodeToString(
                o.getOrDefault("admin", "admin:bench-admin-password").getBytes(StandardCharsets.UTF_8));
        int n = Integer.parseInt(o.getOrDefault("connections", "20000"));
        int inFlight = Integer.parseInt(o.getOrDefault("in-flight", "200"));
        int holdSeconds = Integer.parseInt(o.getOrDefault("hold", "90"));
        int heartbeatSeconds = Integer.parseInt(o.getOrDefault("heartbeat", "30"));
        String run = Long.toHexString(System.nanoTime());
        System.out.printf("connections=%d in-flight=%d hold=%ds heartbeat=%ds run=%s%n", n, inFlight, holdSeconds,
                heartbeatSeconds, run);

        // 1. Users with device tokens (not measured as logins).
        long t0 = System.nanoTime();
        String[] uid = new String[n];
        String[] token = new String[n];
        ExecutorService pool = Executors.newFixedThreadPool(32);
        AtomicInteger failures = new AtomicInteger();
        List<java.util.concurrent.Future<?>> setup = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int k = i;
            setup.add(pool.submit(() -> {
                HttpResponse<String> r = post(url + "/api/v1/registrations", null, "{\"username\":\"ws" + run + "_" + k
                        + "\",\"deviceType\":\"android\",\"deviceId\":\"dev-" + k + "\"}");
                if (r.statusCode() != 201) {
                    failures.incrementAndGet();
                    return null;
                }
                JsonObject body = json(r.body());
                uid[k] = body.getJsonObject("account").getString("id");
                token[k] = body.getJsonObject("token").getString("token");
                return null;
            }));
        }
        for (var f : setup) {
            f.get();
        }
        pool.shutdown();
        double setupSeconds = (System.nanoTime() - t0) / 1e9;
        System.out.printf("setup: %d users in %.1f s (%d failed)%n", n, setupSeconds, failures.get());
        if (failures.get() > 0) {
            throw new IllegalStateException("registration failed for " + failures.get() + " users");
        }

        // 2. Connect and log in, at most inFlight at a time.
        URI ws = URI.create(url.replaceFirst("^http", "ws") + "/ws");
        Device[] devices = new Device[n];
        Device.INTERVAL_MS = heartbeatSeconds * 1000L;
        Semaphore permits = new Semaphore(inFlight);
        long t1 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            permits.acquire();
            Device d = new Device(i, token[i], permits);
            devices[i] = d;
            HTTP.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(30)).buildAsync(ws, d).whenComplete((socket, error) -> {
                if (error != null) {
                    d.loggedIn.completeExceptionally(error);
                    permits.release();
                }
            });
        }
        int loginFailures = 0;
        for (Device d : devices) {
            try {
                d.loggedIn.get(120, TimeUnit.SECONDS);
            } catch (Exception e) {
                loginFailures++;
            }
        }
        double loginSeconds = (System.nanoTime() - t1) / 1e9;
        double loginsPerSecond = (n - loginFailures) / loginSeconds;
        System.out.printf("logins: %d in %.1f s = %.0f logins/s (%d failed)%n", n - loginFailures, loginSeconds,
                loginsPerSecond, loginFailures);
        // The first quarter warms a freshly started server up (its JIT compilers take a core for the
        // first tens of seconds); the rate over the rest is the steady one.
        long[] done = java.util.Arrays.stream(devices).mapToLong(d -> d.loggedInAt).filter(t -> t > 0).sorted().toArray();
        int quarter = done.length / 4;
        double steadyLoginsPerSecond = done.length < 8 ? loginsPerSecond
                : (done.length - 1 - quarter) / ((done[done.length - 1] - done[quarter]) / 1e9);
        System.out.printf("logins after the first quarter: %.0f logins/s%n", steadyLoginsPerSecond);
        System.out.println("READY");
        System.out.flush();

        // 3. Hold: every device has heartbeated since its own login; round trips count from now on.
        Device.RECORD = true;
        Thread.sleep(holdSeconds * 1000L);
        Device.SCHEDULER.shutdownNow();

        // 4. A sample of 1000 is online according to the server.
        StringBuilder sample = new StringBuilder("{\"uids\":[");
        int step = Math.max(1, n / 1000);
        int asked = 0;
        for (int i = 0; i < n; i += step) {
            sample.append(asked++ == 0 ? "" : ",").append('"').append(uid[i]).append('"');
        }
        sample.append("]}");
        JsonObject presence = json(post(url + "/api/v1/presence/users:query", admin, sample.toString()).body());
        long online = presence.getJsonArray("users").stream().filter(u -> u.asJsonObject().getBoolean("online")).count();

        long[] rtt = ConcurrentLinkedQueueToArray(Device.RTT);
        Arrays.sort(rtt);
        double p50 = rtt.length == 0 ? -1 : rtt[rtt.length / 2] / 1e6;
        double p99 = rtt.length == 0 ? -1 : rtt[Math.min(rtt.length - 1, (int) (rtt.length * 0.99))] / 1e6;
        long closed = Arrays.stream(devices).filter(d -> d.closedEarly).count();
        System.out.printf("heartbeats: %d, p50 %.1f ms, p99 %.1f ms; closed by the server: %d; sample online: %d/%d%n",
                rtt.length, p50, p99, closed, online, asked);
        System.out.printf("RESULT connections=%d logins_per_s=%.0f steady_logins_per_s=%.0f setup_s=%.1f heartbeats=%d hb_p50_ms=%.1f hb_p99_ms=%.1f "
                + "sample_online=%d/%d closed=%d%n", n - loginFailures, loginsPerSecond, steadyLoginsPerSecond, setupSeconds, rtt.length, p50, p99,
                online, asked, closed);
        for (Device d : devices) {
            if (d.socket != null) {
                d.socket.sendClose(1000, "bye");
            }
        }
        Thread.sleep(2000);
        System.exit(0);
    }

    static long[] ConcurrentLinkedQueueToArray(ConcurrentLinkedQueue<Long> q) {
        return q.stream().mapToLong(Long::longValue).toArray();
    }

    /** One device: hello then login on open; afterwards times heartbeat round trips. */
    static final class Device implements WebSocket.Listener {
        static final ConcurrentLinkedQueue<Long> RTT = new ConcurrentLinkedQueue<>();
        static final java.util.concurrent.ScheduledExecutorService SCHEDULER = Executors.newScheduledThreadPool(2);
        static volatile long INTERVAL_MS;
        static volatile boolean RECORD;
        final int index;
        final String token;
        final Semaphore permits;
        final CompletableFuture<Void> loggedIn = new CompletableFuture<>();
        volatile long loggedInAt;
        final StringBuilder partial = new StringBuilder();
        volatile WebSocket socket;
        volatile long heartbeatSentAt;
        volatile boolean closedEarly;
        int stage;

        Device(int index, String token, Semaphore permits) {
            this.index = index;
            this.token = token;
            this.permits = permits;
        }

        @Override
        public void onOpen(WebSocket ws) {
            socket = ws;
            ws.sendText("{\"v\":1,\"type\":\"hello\",\"deviceId\":\"dev-" + index + "\",\"deviceType\":\"android\"}", true);
            ws.request(1);
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                String frame = partial.toString();
                partial.setLength(0);
                if (stage == 0 && frame.contains("\"type\":\"hello\"")) {
                    stage = 1;
                    ws.sendText("{\"v\":1,\"type\":\"login\",\"token\":\"" + token + "\"}", true);
                } else if (stage == 1 && frame.contains("\"type\":\"login\"")) {
                    stage = 2;
                    // Like a real device: heartbeats start with the session, staggered over the interval.
                    SCHEDULER.scheduleAtFixedRate(this::heartbeat, (long) (Math.random() * INTERVAL_MS), INTERVAL_MS,
                            TimeUnit.MILLISECONDS);
                    loggedInAt = System.nanoTime();
                    permits.release();
                    loggedIn.complete(null);
                } else if (frame.contains("\"type\":\"heartbeat\"") && heartbeatSentAt != 0) {
                    if (RECORD) {
                        RTT.add(System.nanoTime() - heartbeatSentAt);
                    }
                    heartbeatSentAt = 0;
                } else if (stage < 2) {
                    permits.release();
                    loggedIn.completeExceptionally(new IllegalStateException(frame));
                }
            }
            ws.request(1);
            return null;
        }

        void heartbeat() {
            if (socket != null && !closedEarly && heartbeatSentAt == 0) {
                heartbeatSentAt = System.nanoTime();
                socket.sendText("{\"v\":1,\"type\":\"heartbeat\"}", true);
            }
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
            closedEarly = true;
            if (!loggedIn.isDone()) {
                permits.release();
                loggedIn.completeExceptionally(new IllegalStateException("closed " + statusCode + " " + reason));
            }
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            closedEarly = true;
            if (!loggedIn.isDone()) {
                permits.release();
                loggedIn.completeExceptionally(error);
            }
        }
    }

    static HttpResponse<String> post(String url, String auth, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (auth != null) {
            b.header("Authorization", auth);
        }
        try {
            return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(url + ": " + e, e);
        }
    }

    static JsonObject json(String s) {
        return Json.createReader(new StringReader(s)).readObject();
    }
}
