package io.roost.bench;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringReader;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

/**
 * Live-room benchmark (seed 002): one room of N viewers (30 % fans) entering over a minute,
 * heartbeating every 10 s with 5 % churn a minute, while 100 dashboards poll its counts every
 * second; then the room closes while other rooms keep being served. Viewer traffic arrives as a
 * relaying back end sends it (batches of 500 through {@code viewers:enter|heartbeat|leave}); the
 * dashboards call {@code GET /stats}. In the same run, the same counts query over JDBC and the
 * seed's Redis {@code SCARD} on a set of the same size are timed side by side ({@link CountsProbe}, a process of
 * its own). Run by
 * {@code bench/live-room.sh}.
 */
public final class LiveRoomBench {

    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    static String url;
    static String auth;

    public static void main(String[] args) throws Exception {
        Map<String, String> o = BenchArgs.parse(args);
        url = o.getOrDefault("url", "http://127.0.0.1:8080");
        String db = o.getOrDefault("db", "jdbc:postgresql://127.0.0.1:55432/roost");
        int redisPort = Integer.parseInt(o.getOrDefault("redis-port", "16379"));
        int viewers = Integer.parseInt(o.getOrDefault("viewers", "100000"));
        int enterSeconds = Integer.parseInt(o.getOrDefault("enter-seconds", "60"));
        int steadySeconds = Integer.parseInt(o.getOrDefault("steady-seconds", "60"));
        int heartbeatSeconds = Integer.parseInt(o.getOrDefault("heartbeat-seconds", "10"));
        int batch = Integer.parseInt(o.getOrDefault("batch", "500"));
        int dashboards = Integer.parseInt(o.getOrDefault("dashboards", "100"));
        int otherRooms = Integer.parseInt(o.getOrDefault("other-rooms", "5"));
        int otherViewers = Integer.parseInt(o.getOrDefault("other-viewers", "1000"));
        double churnPerMinute = Double.parseDouble(o.getOrDefault("churn", "0.05"));
        String run = Long.toHexString(System.nanoTime());
        System.out.printf("viewers=%d fans=30%% enter=%ds steady=%ds heartbeat=%ds batch=%d dashboards=%d other-rooms=%dx%d churn=%.0f%%/min run=%s%n",
                viewers, enterSeconds, steadySeconds, heartbeatSeconds, batch, dashboards, otherRooms, otherViewers,
                churnPerMinute * 100, run);

        // ---- set-up (not measured): a bearer token for the relay, anchors, 30 % of the uids following the anchor
        auth = "Bearer " + json(send("POST", "/api/v1/auth/login", null, "{\"login\":\"admin\",\"password\":\""
                + o.getOrDefault("admin-password", "bench-admin-password") + "\",\"deviceType\":\"web\",\"deviceId\":\"bench\"}"))
                .getString("token");
        String[] anchors = new String[otherRooms + 1];
        for (int i = 0; i < anchors.length; i++) {
            anchors[i] = json(send("POST", "/api/v1/registrations", null, "{\"username\":\"anchor" + run + "_" + i
                    + "\",\"deviceType\":\"web\",\"deviceId\":\"a\"}")).getJsonObject("account").getString("id");
        }
        long base = 5_000_000_000L + (System.nanoTime() % 1000) * 10_000_000L;
        long spare = viewers * 2L; // churn brings new uids after the first N
        try (Connection c = DriverManager.getConnection(db, o.getOrDefault("db-user", "roost"), o.getOrDefault("db-password", "roost"));
             PreparedStatement ps = c.prepareStatement(
                     "INSERT INTO social_follow (follower_id, followee_id) SELECT g, ? FROM generate_series(?::bigint, ?::bigint) g WHERE g % 10 < 3")) {
            ps.setLong(1, Long.parseLong(anchors[0]));
            ps.setLong(2, base);
            ps.setLong(3, base + spare);
            System.out.printf("set-up: %d follows of the anchor%n", ps.executeUpdate());
        }
        String room = "bench-" + run;
        String[] others = new String[otherRooms];
        check(send("POST", "/api/v1/rooms/" + room + "/sessions", auth, "{\"anchorId\":\"" + anchors[0] + "\"}"), 201);
        for (int i = 0; i < otherRooms; i++) {
            others[i] = "bench-" + run + "-other" + i;
            check(send("POST", "/api/v1/rooms/" + others[i] + "/sessions", auth, "{\"anchorId\":\"" + anchors[i + 1] + "\"}"), 201);
            long first = base + spare + 1 + (long) i * otherViewers;
            for (int from = 0; from < otherViewers; from += batch) {
                viewerOp(others[i], "enter", first + from, Math.min(batch, otherViewers - from));
            }
        }

        // the seed's Redis set of the same size, for SCARD next to the counts query
        Resp redis = new Resp(redisPort);
        redis.call("DEL", "online-fans:" + room);
        for (int from = 0; from < viewers; from += 1000) {
            String[] cmd = new String[2 + Math.min(1000, viewers - from)];
            cmd[0] = "SADD";
            cmd[1] = "online-fans:" + room;
            for (int k = 2; k < cmd.length; k++) {
                cmd[k] = Long.toString(base + from + k - 2);
            }
            redis.call(cmd);
        }

        ScheduledExecutorService clock = Executors.newScheduledThreadPool(4);
        ExecutorService relay = Executors.newFixedThreadPool(8);
        // the viewers present are the contiguous uids base + [low, high): churn leaves at the low end, enters at the high end
        AtomicLong low = new AtomicLong();
        AtomicLong high = new AtomicLong();
        AtomicBoolean mainRoomLive = new AtomicBoolean(true);
        AtomicLong heartbeatsAccepted = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        AtomicBoolean steady = new AtomicBoolean();
        ConcurrentLinkedQueue<Long> statsHttp = new ConcurrentLinkedQueue<>();

        // ---- heartbeats: each second, the slice of entered viewers whose turn it is (every viewer once per interval)
        AtomicLong tick = new AtomicLong();
        clock.scheduleAtFixedRate(() -> {
            long t = tick.getAndIncrement() % heartbeatSeconds;
            List<Long> slice = new ArrayList<>();
            long from0 = low.get();
            for (long i = from0 + Math.floorMod(t - from0, heartbeatSeconds); i < high.get() && mainRoomLive.get(); i += heartbeatSeconds) {
                slice.add(base + i);
            }
            for (int i = 0; i < otherRooms; i++) {
                long first = base + spare + 1 + (long) i * otherViewers;
                String r = others[i];
                relay.submit(() -> guarded(failures, () -> viewerOp(r, "heartbeat", first + t, otherViewers / heartbeatSeconds, heartbeatSeconds)));
            }
            for (int from = 0; from < slice.size(); from += batch) {
                List<Long> part = slice.subList(from, Math.min(slice.size(), from + batch));
                relay.submit(() -> guarded(failures, () -> {
                    if (!mainRoomLive.get()) {
                        return; // queued before the close
                    }
                    try {
                        viewerOp(room, "heartbeat", part);
                    } catch (RuntimeException e) {
                        if (mainRoomLive.get()) {
                            throw e;
                        }
                        return; // sent as the room closed: the 404 a back end gets then
                    }
                    if (steady.get()) {
                        heartbeatsAccepted.addAndGet(part.size());
                    }
                }));
            }
        }, 1, 1, TimeUnit.SECONDS);
        // the anchors' heartbeats
        clock.scheduleAtFixedRate(() -> guarded(failures, () -> {
            if (mainRoomLive.get()) {
                send("PUT", "/api/v1/rooms/" + room + "/sessions/current/heartbeat", auth, "");
            }
            for (String r : others) {
                send("PUT", "/api/v1/rooms/" + r + "/sessions/current/heartbeat", auth, "");
            }
        }), 5, 10, TimeUnit.SECONDS);

        // The anchor's dashboards poll for as long as the room is live, as they would; only the steady
        // state's polls are timed (the enter phase also warms that path up, as hours of uptime would).
        AtomicBoolean polling = new AtomicBoolean(true);
        ExecutorService pollers = dashboardThreads(dashboards);
        for (int d = 0; d < dashboards; d++) {
            pollers.submit(dashboard(room, d * 1000L / dashboards, polling, steady, statsHttp, failures));
        }

        // ---- 1. enter: N viewers over enterSeconds, in batches paced evenly
        long t0 = System.nanoTime();
        long enterFromMs = System.currentTimeMillis();
        int batches = (viewers + batch - 1) / batch;
        for (int b = 0; b < batches; b++) {
            long due = t0 + (long) (b * (enterSeconds * 1e9 / batches));
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            long from = (long) b * batch;
            int size = (int) Math.min(batch, viewers - from);
            viewerOp(room, "enter", base + from, size);
            high.set(from + size);
        }
        double enterTook = (System.nanoTime() - t0) / 1e9;
        JsonObject afterEnter = json(send("GET", "/api/v1/rooms/" + room + "/stats", auth, null));
        System.out.printf("enter: %d viewers in %.1f s (%.0f/s); stats online=%d onlineFans=%d%n", viewers, enterTook,
                viewers / enterTook, afterEnter.getInt("online"), afterEnter.getInt("onlineFans"));
        phase("enter", enterFromMs);

        // ---- 2. steady state: heartbeats, churn, the dashboards (timed from now on); the SQL/Redis probe
        steady.set(true);
        String dbUser = o.getOrDefault("db-user", "roost");
        String dbPassword = o.getOrDefault("db-password", "roost");
        Process probe = CountsProbe.start(db, dbUser, dbPassword, redisPort, room, steadySeconds);
        try (Connection c = DriverManager.getConnection(db, dbUser, dbPassword)) {
            long churnStep = Math.max(1, Math.round(viewers * churnPerMinute / 60));
            long nextNew = base + viewers;
            long nextLeaver = base;
            long steadyStart = System.nanoTime();
            long steadyFromMs = System.currentTimeMillis();
            for (int second = 0; second < steadySeconds; second++) { // 5 %/min: some leave, as many new ones enter
                long leaver = nextLeaver;
                long newcomer = nextNew;
                low.addAndGet(churnStep); // no more heartbeats for the leavers
                relay.submit(() -> guarded(failures, () -> {
                    viewerOp(room, "leave", leaver, (int) churnStep);
                    viewerOp(room, "enter", newcomer, (int) churnStep);
                    high.addAndGet(churnStep);
                }));
                nextLeaver += churnStep;
                nextNew += churnStep;
                sleepMs(Math.max(0, (second + 1) * 1000L - (System.nanoTime() - steadyStart) / 1_000_000));
            }
            double[] probed = CountsProbe.result(probe);
            double steadyTook = (System.nanoTime() - steadyStart) / 1e9;
            phase("steady", steadyFromMs);
            polling.set(false);
            pollers.shutdown();
            pollers.awaitTermination(10, TimeUnit.SECONDS);
            JsonObject afterSteady = json(send("GET", "/api/v1/rooms/" + room + "/stats", auth, null));
            System.out.printf("steady: %.0f s; heartbeats accepted %.0f/s; stats online=%d onlineFans=%d (churned out: %d, in: %d)%n",
                    steadyTook, heartbeatsAccepted.get() / steadyTook, afterSteady.getInt("online"), afterSteady.getInt("onlineFans"),
                    nextLeaver - base, nextNew - base - viewers);
            System.out.printf("dashboards GET /stats: %d polls, p50 %.2f ms, p99 %.2f ms, max %.1f ms%n", statsHttp.size(),
                    pct(statsHttp, 0.5), pct(statsHttp, 0.99), pct(statsHttp, 1.0));
            System.out.printf("counts query over JDBC (probe process): %.0f, p50 %.2f ms, p99 %.2f ms%n", probed[0], probed[1], probed[2]);
            System.out.printf("Redis SCARD (%d members, probe process): %.0f, p50 %.2f ms, p99 %.2f ms%n", viewers, probed[0], probed[3], probed[4]);

            // ---- 3. close the big room while the other rooms keep being served
            ConcurrentLinkedQueue<Long> otherLatency = new ConcurrentLinkedQueue<>();
            AtomicBoolean closing = new AtomicBoolean(true);
            // the other rooms' own dashboards: as many, and polling as often, as the big room's had
            ExecutorService otherPollers = dashboardThreads(dashboards);
            for (int d = 0; d < dashboards; d++) {
                otherPollers.submit(dashboard(others[d % otherRooms], d * 1000L / dashboards, closing, closing, otherLatency, failures));
            }
            sleepMs(5000);
            double baselineP99 = pct(otherLatency, 0.99);
            double baselineMax = pct(otherLatency, 1.0);
            int baselineCount = otherLatency.size();
            otherLatency.clear();
            mainRoomLive.set(false);
            long c0 = System.nanoTime();
            long closeFromMs = System.currentTimeMillis();
            JsonObject closed = json(check(send("DELETE", "/api/v1/rooms/" + room + "/sessions/current", auth, null), 200));
            double closeCall = (System.nanoTime() - c0) / 1e6;
            String sessionId = closed.getString("id");
            double offlineTook;
            try (PreparedStatement online = c.prepareStatement("SELECT count(*) FROM room_viewer WHERE session_id = ? AND online")) {
                online.setLong(1, Long.parseLong(sessionId));
                while (true) {
                    try (ResultSet rs = online.executeQuery()) {
                        rs.next();
                        if (rs.getLong(1) == 0) {
                            break;
                        }
                    }
                    sleepMs(50);
                }
                offlineTook = (System.nanoTime() - c0) / 1e9;
            }
            while (!json(send("GET", "/api/v1/rooms/" + room + "/sessions/" + sessionId, auth, null)).getBoolean("cleared")) {
                sleepMs(100);
            }
            double clearTook = (System.nanoTime() - c0) / 1e9;
            phase("clearing", closeFromMs);
            closing.set(false);
            otherPollers.shutdown();
            otherPollers.awaitTermination(10, TimeUnit.SECONDS);
            System.out.printf("close: DELETE took %.1f ms (final online=%d); every viewer offline after %.1f s, session marked "
                    + "cleared after %.1f s (5 s grace); other rooms' GET /stats: before the close %d requests, p99 %.1f ms, max %.1f ms; "
                    + "while clearing %d requests, p99 %.1f ms, max %.1f ms%n",
                    closeCall, closed.getInt("online"), offlineTook, clearTook, baselineCount, baselineP99, baselineMax,
                    otherLatency.size(), pct(otherLatency, 0.99), pct(otherLatency, 1.0));
            long r0 = System.nanoTime();
            redis.call("DEL", "online-fans:" + room);
            System.out.printf("Redis DEL of the %d-member set: %.1f ms (blocks every other Redis client meanwhile)%n", viewers,
                    (System.nanoTime() - r0) / 1e6);
            System.out.printf("RESULT viewers=%d enter_per_s=%.0f heartbeats_per_s=%.0f stats_http_p50_ms=%.2f stats_http_p99_ms=%.2f "
                            + "stats_sql_p50_ms=%.2f stats_sql_p99_ms=%.2f scard_p50_ms=%.2f scard_p99_ms=%.2f close_ms=%.1f offline_s=%.1f "
                            + "other_rooms_max_before_ms=%.1f other_rooms_max_during_ms=%.1f failures=%d%n",
                    viewers, viewers / enterTook, heartbeatsAccepted.get() / steadyTook, pct(statsHttp, 0.5), pct(statsHttp, 0.99),
                    probed[1], probed[2], probed[3], probed[4], closeCall, offlineTook,
                    baselineMax, pct(otherLatency, 1.0), failures.get());
        } finally {
            clock.shutdownNow();
            relay.shutdownNow();
            for (String r : others) {
                send("DELETE", "/api/v1/rooms/" + r + "/sessions/current", auth, null);
            }
        }
    }

    static void viewerOp(String room, String op, long first, int count) {
        viewerOp(room, op, first, count, 1);
    }

    static void viewerOp(String room, String op, long first, int count, int step) {
        viewerOp(room, op, LongStream.range(0, count).map(i -> first + i * step).boxed().toList());
    }

    static void viewerOp(String room, String op, List<Long> uids) {
        String body = uids.stream().map(u -> "\"" + u + "\"").collect(Collectors.joining(",", "{\"uids\":[", "]}"));
        check(send("POST", "/api/v1/rooms/" + room + "/viewers:" + op, auth, body), 200);
    }

    /** Threads for the dashboards; daemons, so a failed run still exits. */
    static ExecutorService dashboardThreads(int n) {
        return Executors.newFixedThreadPool(n, r -> {
            Thread t = new Thread(r, "dashboard");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * One anchor dashboard: polls a room's counts once a second (from {@code offsetMs} into the
     * second) over its own keep-alive connection with prepared request bytes, so the load
     * generator's cost per poll stays far below the server's, until {@code running} turns false;
     * a poll's latency is kept while {@code timed} is true.
     */
    static Runnable dashboard(String room, long offsetMs, AtomicBoolean running, AtomicBoolean timed,
                              ConcurrentLinkedQueue<Long> latency, AtomicLong failures) {
        URI base = URI.create(url);
        byte[] poll = RawHttp.get(base.getHost() + ":" + base.getPort(), "/api/v1/rooms/" + room + "/stats",
                "Authorization: " + auth + "\r\n");
        return () -> {
            sleepMs(offsetMs);
            RawHttp connection = null;
            while (running.get()) {
                long s = System.nanoTime();
                try {
                    if (connection == null) {
                        connection = new RawHttp(base.getHost(), base.getPort());
                    }
                    if (connection.exchange(poll) != 200) {
                        failures.incrementAndGet();
                    }
                } catch (IOException e) {
                    failures.incrementAndGet();
                    if (connection != null) {
                        connection.close();
                        connection = null;
                    }
                }
                if (timed.get()) {
                    latency.add(System.nanoTime() - s);
                }
                sleepMs(Math.max(0, 1000 - (System.nanoTime() - s) / 1_000_000));
            }
            if (connection != null) {
                connection.close();
            }
        };
    }

    static HttpResponse<String> send(String method, String path, String authorization, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json");
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        try {
            return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(method + " " + path + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static HttpResponse<String> check(HttpResponse<String> r, int status) {
        if (r.statusCode() != status) {
            throw new IllegalStateException(r.request().method() + " " + r.request().uri() + " -> " + r.statusCode() + " " + r.body());
        }
        return r;
    }

    /** A phase's wall-clock span, for the script's CPU samples. */
    static void phase(String name, long fromMs) {
        System.out.printf("PHASE %s from_ms=%d to_ms=%d%n", name, fromMs, System.currentTimeMillis());
    }

    static JsonObject json(HttpResponse<String> r) {
        if (r.statusCode() / 100 != 2) {
            throw new IllegalStateException(r.request().uri() + " -> " + r.statusCode() + " " + r.body());
        }
        try (var reader = Json.createReader(new StringReader(r.body()))) {
            return reader.readObject();
        }
    }

    static void guarded(AtomicLong failures, Runnable work) {
        try {
            work.run();
        } catch (RuntimeException e) {
            if (failures.incrementAndGet() <= 5) {
                System.out.println("failure: " + e.getMessage());
            }
        }
    }

    static double pct(ConcurrentLinkedQueue<Long> nanos, double q) {
        long[] v = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
        return v.length == 0 ? -1 : v[Math.min(v.length - 1, (int) (v.length * q))] / 1e6;
    }

    static void sleepMs(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A minimal RESP (Redis protocol) client: one connection, one command at a time. */
    static final class Resp {
        private final OutputStream out;
        private final InputStream in;

        Resp(int port) throws IOException {
            Socket s = new Socket("127.0.0.1", port);
            s.setTcpNoDelay(true);
            out = s.getOutputStream();
            in = new BufferedInputStream(s.getInputStream());
        }

        String call(String... args) {
            try {
                StringBuilder b = new StringBuilder("*").append(args.length).append("\r\n");
                for (String a : args) {
                    b.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
                }
                out.write(b.toString().getBytes(StandardCharsets.UTF_8));
                out.flush();
                String line = line();
                if (line.startsWith("-")) {
                    throw new IllegalStateException("redis: " + line);
                }
                if (line.startsWith("$") && !line.equals("$-1")) {
                    byte[] bulk = in.readNBytes(Integer.parseInt(line.substring(1)) + 2);
                    return new String(bulk, 0, bulk.length - 2, StandardCharsets.UTF_8);
                }
                return line.substring(1);
            } catch (IOException e) {
                throw new IllegalStateException("redis: " + e, e);
            }
        }

        private String line() throws IOException {
            StringBuilder b = new StringBuilder();
            int c;
            while ((c = in.read()) != '\r') {
                if (c < 0) {
                    throw new IOException("redis closed the connection");
                }
                b.append((char) c);
            }
            in.read(); // '\n'
            return b.toString();
        }
    }

    private LiveRoomBench() {
    }
}
