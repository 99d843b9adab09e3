package io.roost.bench;

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
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Many logged-in device connections on one node: registers N users (anonymous registration with a
 * device: one request each, no password hashing), warms the server up with spare users logging in and
 * out, then rehearses the measured burst once (the same users log in, hold, and leave), then opens N
 * WebSockets with a bounded number in flight (hello → login) through a lean
 * one-thread client ({@link LeanWebSockets}) and reports logins/s; holds them with a heartbeat every
 * 30 s per connection (staggered) and reports heartbeat round trips; checks a sample is online.
 * Prints {@code BASELINE} after the warm-up (and with {@code --go-file} waits for that file, which the
 * script creates once it measured the server) and {@code READY} when all are connected (the script
 * measures the server's memory at both) and a final {@code RESULT} line. Run by bench/ws-connections.sh.
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
        int warmupSeconds = Integer.parseInt(o.getOrDefault("warmup-seconds", "45"));
        // Until both: the seconds, and enough logins for the JIT to compile the per-login path with C2
        // (its thresholds are in the ten thousands of calls; short of them, C2 was 14 % of the box during the logins).
        int warmupLogins = Integer.parseInt(o.getOrDefault("warmup-logins", "40000"));
        int rehearsals = Integer.parseInt(o.getOrDefault("rehearsals", "1"));
        int rehearsalHoldSeconds = Integer.parseInt(o.getOrDefault("rehearsal-hold", "15"));
        int warmup = warmupSeconds > 0 ? Integer.parseInt(o.getOrDefault("warmup-users", "2000")) : 0;
        java.nio.file.Path goFile = o.containsKey("go-file") ? java.nio.file.Path.of(o.get("go-file")) : null;
        String run = Long.toHexString(System.nanoTime());
        System.out.printf("connections=%d in-flight=%d hold=%ds heartbeat=%ds warm-up=%ds rehearsals=%d run=%s%n", n, inFlight,
                holdSeconds, heartbeatSeconds, warmupSeconds, rehearsals, run);

        // 1. Users with device tokens (not measured as logins).
        long t0 = System.nanoTime();
        String[] uid = new String[n + warmup];
        String[] token = new String[n + warmup];
        ExecutorService pool = Executors.newFixedThreadPool(32);
        AtomicInteger failures = new AtomicInteger();
        List<java.util.concurrent.Future<?>> setup = new ArrayList<>();
        for (int i = 0; i < n + warmup; i++) {
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
        System.out.printf("setup: %d users in %.1f s (%d failed)%n", n + warmup, setupSeconds, failures.get());
        if (failures.get() > 0) {
            throw new IllegalStateException("registration failed for " + failures.get() + " users");
        }

        // 2. Warm-up: a freshly started server spends its first tens of seconds compiling (its JIT
        // threads take most of a core), so spare users log in, heartbeat once and leave, in a loop; the
        // baseline heap is taken after it ("warmed").
        URI ws = URI.create(url.replaceFirst("^http", "ws") + "/ws");
        LeanWebSockets client = new LeanWebSockets(ws.getHost(), ws.getPort(), ws.getPath());
        if (warmupSeconds > 0) {
            long until = System.nanoTime() + warmupSeconds * 1_000_000_000L;
            int logins = spareLogins(client, token, n, warmup, inFlight, 0,
                    started -> System.nanoTime() < until || started < warmupLogins);
            System.out.printf("warmed: %d logins and logouts in %.0f s%n", logins,
                    (System.nanoTime() - until) / 1e9 + warmupSeconds);
            awaitOffline(url, admin, Arrays.asList(uid).subList(n, n + warmup));
        }
        // 3. Rehearsal: the same burst of the same users, held for a while, then closed. A server that has
        // been up for a day has seen such bursts (a reconnection storm after a network flap); its code for
        // them is compiled. The spare-user loop alone left WildFly's one C2 thread compiling through most
        // of the measured logins (300 methods, 14 s of compile time in 14 s), so the first burst is the
        // cold figure and the measured one the warm figure.
        long intervalNs = heartbeatSeconds * 1_000_000_000L;
        for (int r = 1; r <= rehearsals; r++) {
            Burst rehearsed = burst(client, token, n, inFlight, intervalNs);
            rehearsed.report("rehearsal " + r + " (cold)");
            Thread.sleep(rehearsalHoldSeconds * 1000L);
            closeAll(client, rehearsed.devices());
            awaitOffline(url, admin, Arrays.asList(uid).subList(0, n));
        }
        // The script takes the server's heap, RSS and CPU now, then creates the go-file.
        JsonObject loginsBefore = loginStats(url, admin);
        System.out.println("BASELINE");
        System.out.flush();
        if (goFile != null) {
            // Until the script says go (once WildFly's JIT is quiet): a trickle of spare users logging in,
            // 50 a second, as a server in service always has. Its C2 compiler only takes methods whose
            // counters pass thresholds scaled by its queue's length, so during a burst much of the burst's
            // code stays in C1 with counters far past them; with no calls between bursts it would stay
            // there and be compiled only during the measured one.
            int trickled = warmup == 0 ? 0 : spareLogins(client, token, n, warmup, 1, 20_000_000L,
                    started -> !java.nio.file.Files.exists(goFile));
            awaitFile(goFile);
            System.out.printf("trickle: %d logins%n", trickled);
        }

        // 4. The measured burst: connect and log in, at most inFlight at a time.
        Burst measured = burst(client, token, n, inFlight, intervalNs);
        Device[] devices = measured.devices();
        long loggedIn = measured.loggedIn();
        double loginsPerSecond = measured.report("logins");
        // Also the rate past the first quarter (without a warm-up, the server's JIT compilers take a core early on).
        double steadyLoginsPerSecond = measured.rateAfterFirstQuarter();
        System.out.printf("logins after the first quarter: %.0f logins/s%n", steadyLoginsPerSecond);
        JsonObject loginsAfter = loginStats(url, admin);
        long attempts = loginsAfter.getJsonNumber("attempts").longValue() - loginsBefore.getJsonNumber("attempts").longValue();
        long batches = loginsAfter.getJsonNumber("batches").longValue() - loginsBefore.getJsonNumber("batches").longValue();
        System.out.printf("login group commit: %d logins in %d batches (%.1f a batch; largest since start %d)%n", attempts,
                batches, batches == 0 ? 0.0 : (double) attempts / batches, loginsAfter.getJsonNumber("largestBatch").longValue());
        System.out.println("READY");
        System.out.flush();

        // 5. Hold: every device has heartbeated since its own login; round trips count from now on.
        if (goFile != null) { // the script measures the heap first, then says go for the hold
            awaitFile(java.nio.file.Path.of(goFile + ".hold"));
        }
        Device.RECORD = true;
        Thread.sleep(holdSeconds * 1000L);
        Device.RECORD = false;
        System.out.println("HELD"); // the script takes the hold's CPU figures, then says the connections may close
        System.out.flush();
        if (goFile != null) {
            awaitFile(java.nio.file.Path.of(goFile + ".held"));
        }

        // 6. A sample of 1000 is online according to the server.
        List<String> sample = new ArrayList<>();
        for (int i = 0; i < n; i += Math.max(1, n / 1000)) {
            sample.add(uid[i]);
        }
        int asked = sample.size();
        long online = online(url, admin, sample);

        long[] rtt = Device.RTT.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(rtt);
        double p50 = rtt.length == 0 ? -1 : rtt[rtt.length / 2] / 1e6;
        double p99 = rtt.length == 0 ? -1 : rtt[Math.min(rtt.length - 1, (int) (rtt.length * 0.99))] / 1e6;
        long closed = Arrays.stream(devices).filter(d -> d.closedEarly).count();
        System.out.printf("heartbeats: %d, p50 %.1f ms, p99 %.1f ms; closed by the server: %d; sample online: %d/%d%n",
                rtt.length, p50, p99, closed, online, asked);
        System.out.printf("RESULT connections=%d logins_per_s=%.0f steady_logins_per_s=%.0f setup_s=%.1f heartbeats=%d hb_p50_ms=%.1f hb_p99_ms=%.1f "
                + "sample_online=%d/%d closed=%d%n", loggedIn, loginsPerSecond, steadyLoginsPerSecond, setupSeconds, rtt.length, p50, p99,
                online, asked, closed);
        closeAll(client, devices);
        client.close();
        System.exit(0);
    }

    /**
     * One device, driven on the client's selector thread: hello then login on open; afterwards, if
     * it has an interval, a heartbeat per interval (the first at a random point of it, like devices
     * that logged in at different moments) whose round trip is timed.
     */
    static final class Device implements LeanWebSockets.Listener {
        static final ConcurrentLinkedQueue<Long> RTT = new ConcurrentLinkedQueue<>();
        static volatile boolean RECORD;
        final LeanWebSockets client;
        final int index;
        final String token;
        final Long intervalNs;
        LeanWebSockets.Conn conn;
        Runnable onLoggedIn = () -> { };
        /** Runs once the login succeeded or failed: the next connection may start. */
        Runnable onDone;
        volatile long loggedInAt;
        String failure;
        long heartbeatSentAt;
        volatile boolean closedEarly;
        boolean closing;
        int stage;

        Device(LeanWebSockets client, int index, String token, Long intervalNs) {
            this.client = client;
            this.index = index;
            this.token = token;
            this.intervalNs = intervalNs;
        }

        @Override
        public void onOpen(LeanWebSockets.Conn c) {
            client.send(c, "{\"v\":1,\"type\":\"hello\",\"deviceId\":\"dev-" + index + "\",\"deviceType\":\"android\"}");
        }

        @Override
        public void onText(LeanWebSockets.Conn c, String frame) {
            if (stage == 0 && frame.contains("\"type\":\"hello\"")) {
                stage = 1;
                client.send(c, "{\"v\":1,\"type\":\"login\",\"token\":\"" + token + "\"}");
            } else if (stage == 1 && frame.contains("\"type\":\"login\"")) {
                stage = 2;
                loggedInAt = System.nanoTime();
                if (intervalNs != null) {
                    client.schedule(loggedInAt + (long) (Math.random() * intervalNs), this::heartbeat);
                }
                onLoggedIn.run();
                done();
            } else if (frame.contains("\"type\":\"heartbeat\"") && heartbeatSentAt != 0) {
                if (RECORD) {
                    RTT.add(System.nanoTime() - heartbeatSentAt);
                }
                heartbeatSentAt = 0;
                if (intervalNs == null) { // a warm-up device: its heartbeat answered, it leaves
                    client.close(c);
                }
            } else if (stage < 2) {
                failure = frame;
                client.close(c);
            }
        }

        void heartbeat() {
            if (conn.closed) {
                return;
            }
            if (heartbeatSentAt == 0) {
                heartbeatSentAt = System.nanoTime();
                client.send(conn, "{\"v\":1,\"type\":\"heartbeat\"}");
            }
            client.schedule(System.nanoTime() + intervalNs, this::heartbeat);
        }

        @Override
        public void onClosed(LeanWebSockets.Conn c, int code) {
            if (stage < 2) {
                if (failure == null) {
                    failure = "closed " + code;
                }
                done();
            } else if (!closing && intervalNs != null) {
                closedEarly = true;
            }
            if (intervalNs == null) { // warm-up devices end here
                done();
            }
        }

        private void done() {
            Runnable next = onDone;
            onDone = null;
            if (next != null) {
                next.run();
            }
        }
    }

    /**
     * Spare users (indexes {@code first} to {@code first + count - 1}, in turn) log in, heartbeat once
     * and leave, {@code inFlight} logins at a time, each loop pausing {@code pauseNs} after a login,
     * while {@code more} says so (asked on the client's thread before each, with the number started so
     * far). Returns the logins started.
     */
    static int spareLogins(LeanWebSockets client, String[] token, int first, int count, int inFlight, long pauseNs,
                           java.util.function.IntPredicate more) throws Exception {
        CompletableFuture<Void> finished = new CompletableFuture<>();
        AtomicInteger active = new AtomicInteger(inFlight);
        int[] next = {0};
        Runnable[] cycle = new Runnable[1];
        cycle[0] = () -> {
            if (!more.test(next[0])) {
                if (active.decrementAndGet() == 0) {
                    finished.complete(null);
                }
                return;
            }
            int k = first + next[0]++ % count;
            Device d = new Device(client, k, token[k], null);
            d.onLoggedIn = () -> { // one heartbeat round trip, then close (Device.onText): the measured path
                d.heartbeatSentAt = System.nanoTime();
                client.send(d.conn, "{\"v\":1,\"type\":\"heartbeat\"}");
            };
            d.onDone = pauseNs == 0 ? cycle[0] : () -> client.schedule(System.nanoTime() + pauseNs, cycle[0]);
            d.conn = client.connect(d);
        };
        for (int i = 0; i < inFlight; i++) {
            client.execute(cycle[0]);
        }
        finished.get();
        return next[0];
    }

    /**
     * Opens {@code n} connections (hello → login) with at most {@code inFlight} in flight; returns once
     * each has logged in or failed. Logged-in devices heartbeat every {@code intervalNs} from then on.
     */
    static Burst burst(LeanWebSockets client, String[] token, int n, int inFlight, long intervalNs) throws Exception {
        Device[] devices = new Device[n];
        AtomicInteger started = new AtomicInteger();
        CompletableFuture<Void> allDone = new CompletableFuture<>();
        AtomicInteger finished = new AtomicInteger();
        Runnable[] open = new Runnable[1];
        open[0] = () -> {
            int k = started.getAndIncrement();
            if (k >= n) {
                return;
            }
            Device d = new Device(client, k, token[k], intervalNs);
            devices[k] = d;
            d.onDone = () -> {
                if (finished.incrementAndGet() == n) {
                    allDone.complete(null);
                }
                open[0].run();
            };
            d.conn = client.connect(d);
        };
        long t0 = System.nanoTime();
        for (int i = 0; i < Math.min(inFlight, n); i++) {
            client.execute(open[0]);
        }
        allDone.get(30, TimeUnit.MINUTES);
        return new Burst(devices, (System.nanoTime() - t0) / 1e9);
    }

    /** A burst's devices and its wall time. */
    record Burst(Device[] devices, double seconds) {

        long loggedIn() {
            return Arrays.stream(devices).filter(d -> d.loggedInAt > 0).count();
        }

        /** Prints what the burst achieved; returns its logins per second. */
        double report(String what) {
            long loggedIn = loggedIn();
            int failed = (int) (devices.length - loggedIn);
            double perSecond = loggedIn / seconds;
            System.out.printf("%s: %d in %.1f s = %.0f logins/s (%d failed%s)%n", what, loggedIn, seconds, perSecond, failed,
                    failed == 0 ? "" : ", first: " + Arrays.stream(devices).filter(d -> d.failure != null).map(d -> d.failure)
                            .findFirst().orElse("?"));
            return perSecond;
        }

        /** Logins per second from the first quarter's last login to the last one. */
        double rateAfterFirstQuarter() {
            long[] done = Arrays.stream(devices).mapToLong(d -> d.loggedInAt).filter(t -> t > 0).sorted().toArray();
            int quarter = done.length / 4;
            return done.length < 8 ? done.length / seconds
                    : (done.length - 1 - quarter) / ((done[done.length - 1] - done[quarter]) / 1e9);
        }
    }

    /** Waits for a file the script creates to say go. */
    static void awaitFile(java.nio.file.Path file) throws InterruptedException {
        while (!java.nio.file.Files.exists(file)) {
            Thread.sleep(100);
        }
    }

    /** Closes every open connection (the close frames are written on the client's thread). */
    static void closeAll(LeanWebSockets client, Device[] devices) throws Exception {
        CompletableFuture<Void> bye = new CompletableFuture<>();
        client.execute(() -> {
            for (Device d : devices) {
                if (d != null && d.conn != null && !d.conn.closed) {
                    d.closing = true;
                    client.close(d.conn);
                }
            }
            bye.complete(null);
        });
        bye.get();
    }

    /** The server ends a session after its socket closed: waits until none of these users is online. */
    static void awaitOffline(String url, String admin, List<String> uids) throws InterruptedException {
        for (int from = 0; from < uids.size(); ) {
            int to = Math.min(from + 1000, uids.size());
            if (online(url, admin, uids.subList(from, to)) == 0) {
                from = to;
            } else {
                Thread.sleep(200);
            }
        }
    }

    /** The server's login counters (GET /api/v1/gateway/stats). */
    static JsonObject loginStats(String url, String admin) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/api/v1/gateway/stats")).timeout(Duration.ofSeconds(60))
                .header("Authorization", admin).GET().build();
        try {
            return json(HTTP.send(request, HttpResponse.BodyHandlers.ofString()).body()).getJsonObject("logins");
        } catch (Exception e) {
            throw new IllegalStateException("gateway stats: " + e, e);
        }
    }

    /** How many of these users (at most 1,000) the server says are online. */
    static long online(String url, String admin, List<String> uids) {
        String body = uids.stream().map(u -> '"' + u + '"').collect(java.util.stream.Collectors.joining(",", "{\"uids\":[", "]}"));
        JsonObject presence = json(post(url + "/api/v1/presence/users:query", admin, body).body());
        return presence.getJsonArray("users").stream().filter(u -> u.asJsonObject().getBoolean("online")).count();
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
