package io.roost.it;

import static io.roost.it.Http.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static io.roost.it.Wait.sleep;
import static org.junit.jupiter.api.Assertions.fail;

import io.roost.devservices.DevServices;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The database goes away under load and comes back. While client threads keep calling health, an
 * authenticated account read (bearer, Basic, the admin console's session), the signed Agora
 * webhook and a device's WebSocket session (login, a friendOp, heartbeat, logout), the dev
 * services' real PostgreSQL is stopped (a fast shutdown: its sessions are cut off) and started
 * again a few seconds later. Every failure must
 * be a 503 problem of type service-unavailable with Retry-After (on the WebSocket: error
 * {@code server-busy}, close 1013), never a 500 or another close; and every path must answer
 * normally again within a few seconds of the restart, and from then on.
 *
 * <p>The ITs share this database: it is started again in a finally, whatever happened.
 */
@Isolated("stops the suite's PostgreSQL under load")
class DatabaseOutageIT extends DeployedRoost {

    static final Duration BEFORE = Duration.ofMillis(1500);
    static final Duration OUTAGE = Duration.ofSeconds(8);
    /** Every path answers normally again within this of the database's return. */
    static final Duration RECOVERY = Duration.ofSeconds(5);
    /** Load kept up after every path has recovered: a connection broken by the restart would show here. */
    static final Duration AFTER = Duration.ofSeconds(2);
    static final long PAUSE_MILLIS = 25;
    static final String UNAVAILABLE = "urn:roost:problem:service-unavailable";
    private static final Pattern STACK_FRAME = Pattern.compile("\\bat [\\w$.]+\\(");

    enum Kind { OK, UNAVAILABLE, WRONG }

    /** One request (or WebSocket session) as a client saw it, stamped when its answer arrived. */
    record Outcome(String path, long at, Kind kind, String detail) {
    }

    /** When PostgreSQL's stop was asked for and done, and its start (System.nanoTime()). */
    record Timeline(long stopAsked, long stopped, long startAsked, long started) {
    }

    private final Queue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
    private volatile boolean running = true;

    @Test
    void everyFailureIs503WithRetryAfterOrServerBusyAndEveryPathRecovers() throws Exception {
        Path devServices = Path.of(System.getProperty("roost.test.data", "target/devservices"));
        Http http = http();
        Ncs ncs = ncs();
        TestUsers.User user = TestUsers.register(baseUrl, "outage-");
        String basic = Http.basic(user.name(), TestUsers.PASSWORD);
        // The admin console's session is in memory: its requests reach JAX-RS, whose mappers meet the failure.
        AdminBrowser console = new AdminBrowser(base());
        assertEquals(200, console.signIn(Http.ADMIN_USER, Http.ADMIN_PASSWORD).statusCode());
        String channel = "outage-" + UUID.randomUUID().toString().substring(0, 8);
        AtomicLong seq = new AtomicLong();

        Map<String, Supplier<Outcome>> paths = new LinkedHashMap<>();
        paths.put("health", () -> http("health", () -> http.get("api/health", null)));
        paths.put("me-bearer", () -> http("me-bearer", () -> http.get("api/v1/accounts/me", user.auth())));
        paths.put("me-basic", () -> http("me-basic", () -> http.get("api/v1/accounts/me", basic)));
        paths.put("me-console", () -> http("me-console", () -> {
            try {
                return console.send("GET", "api/v1/accounts/me", null, false);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }));
        // One member joining and leaving (a new noticeId each time: a known one is answered from memory).
        paths.put("webhook", () -> http("webhook", () -> {
            long n = seq.incrementAndGet();
            return ncs.send(Ncs.member(UUID.randomUUID().toString(), n % 2 == 1 ? 103 : 104, channel, 1, n,
                    System.currentTimeMillis() / 1000, null));
        }));
        paths.put("websocket", () -> webSocketSession(user.token()));
        paths.forEach((path, probe) -> assertEquals(Kind.OK, probe.get().kind(), path + " before the outage"));

        List<Thread> clients = new ArrayList<>();
        paths.forEach((path, probe) -> {
            Thread t = new Thread(() -> {
                while (running) {
                    outcomes.add(probe.get());
                    sleep(PAUSE_MILLIS);
                }
            }, "outage-" + path);
            clients.add(t);
            t.start();
        });
        long stopAsked = 0;
        long stopped = 0;
        long startAsked = 0;
        long started = 0;
        try {
            sleep(BEFORE.toMillis());
            stopAsked = System.nanoTime();
            DevServices.database(devServices, false);
            stopped = System.nanoTime();
            sleep(OUTAGE.toMillis());
            startAsked = System.nanoTime();
            DevServices.database(devServices, true);
            started = System.nanoTime();
            long deadline = started + RECOVERY.toNanos();
            while (System.nanoTime() < deadline && !allRecovered(paths.keySet(), started)) {
                sleep(100);
            }
            sleep(AFTER.toMillis());
        } finally {
            running = false;
            for (Thread t : clients) {
                t.join(TimeUnit.SECONDS.toMillis(60));
            }
            if (stopAsked != 0 && started == 0) {
                DevServices.database(devServices, true);
                awaitHealthy(http);
            }
        }

        Timeline t = new Timeline(stopAsked, stopped, startAsked, started);
        List<Outcome> all = new ArrayList<>(outcomes);
        String summary = summary(all, t);
        System.out.println("[DatabaseOutageIT] " + summary);
        List<Outcome> wrong = all.stream().filter(o -> o.kind == Kind.WRONG).toList();
        if (!wrong.isEmpty()) {
            // The first two of each path: one path's flood must not hide another's.
            fail(wrong.size() + " answers were neither a success nor a proper 503 / server-busy, e.g."
                    + wrong.stream().collect(Collectors.groupingBy(Outcome::path, TreeMap::new, Collectors.toList())).values()
                    .stream().flatMap(l -> l.stream().limit(2)).map(o -> o.path + " " + String.format("%.2f s: ",
                            (o.at - t.stopAsked) / 1e9) + o.detail.substring(0, Math.min(400, o.detail.length())))
                    .collect(Collectors.joining("\n  ", "\n  ", "\n")) + summary);
        }
        for (String path : paths.keySet()) {
            List<Outcome> mine = all.stream().filter(o -> o.path.equals(path)).toList();
            assertTrue(mine.stream().filter(o -> o.at < t.stopAsked).allMatch(o -> o.kind == Kind.OK),
                    path + ": all answers before the stop are successes; " + summary);
            assertTrue(mine.stream().anyMatch(o -> o.at > t.stopped && o.at < t.startAsked && o.kind == Kind.UNAVAILABLE),
                    path + ": the outage was seen (a 503 / server-busy while the database was down); " + summary);
            Outcome back = mine.stream().filter(o -> o.at > t.started && o.kind == Kind.OK).findFirst().orElse(null);
            assertTrue(back != null && back.at - t.started <= RECOVERY.toNanos(),
                    path + ": answers normally within " + RECOVERY.toSeconds() + " s of the restart; " + summary);
            assertTrue(mine.stream().filter(o -> o.at > back.at).allMatch(o -> o.kind == Kind.OK),
                    path + ": once recovered, every answer is a success; " + summary);
        }
        // And the last word: each path once more, after the load.
        paths.forEach((path, probe) -> assertEquals(Kind.OK, probe.get().kind(), path + " after the outage"));
    }

    private boolean allRecovered(Iterable<String> paths, long since) {
        for (String path : paths) {
            if (outcomes.stream().noneMatch(o -> o.path.equals(path) && o.at > since && o.kind == Kind.OK)) {
                return false;
            }
        }
        return true;
    }

    /** A request's answer: 2xx is a success; 503 must be the service-unavailable problem with Retry-After. */
    private static Outcome http(String path, Supplier<HttpResponse<String>> request) {
        HttpResponse<String> r;
        try {
            r = request.get();
        } catch (RuntimeException | AssertionError e) {
            return new Outcome(path, System.nanoTime(), Kind.WRONG, "no answer: " + e.getMessage());
        }
        long at = System.nanoTime();
        if (r.statusCode() / 100 == 2) {
            return new Outcome(path, at, Kind.OK, Integer.toString(r.statusCode()));
        }
        String problem = unavailableProblem(r);
        return problem == null ? new Outcome(path, at, Kind.UNAVAILABLE, "503")
                : new Outcome(path, at, Kind.WRONG, r.statusCode() + " " + problem + ": " + r.body());
    }

    /** Null if this is a proper 503 service-unavailable problem with Retry-After, else what is wrong with it. */
    private static String unavailableProblem(HttpResponse<String> r) {
        if (r.statusCode() != 503) {
            return "is not 503";
        }
        String retryAfter = r.headers().firstValue("Retry-After").orElse(null);
        if (retryAfter == null || !retryAfter.matches("[1-9][0-9]*")) {
            return "Retry-After is " + retryAfter;
        }
        if (!r.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json")) {
            return "Content-Type is " + r.headers().firstValue("Content-Type").orElse(null);
        }
        if (STACK_FRAME.matcher(r.body()).find()) {
            return "has a stack trace";
        }
        JsonObject body;
        try {
            body = json(r.body());
        } catch (AssertionError e) {
            return "is not JSON";
        }
        if (!UNAVAILABLE.equals(body.getString("type", null)) || body.getInt("status", 0) != 503) {
            return "has type " + body.getString("type", null);
        }
        return null;
    }

    /**
     * A device session: hello, login, a friendOp (a database read), heartbeat, logout. Each answer is
     * the expected frame, or error server-busy followed by a close with 1013.
     */
    private Outcome webSocketSession(String token) {
        String step = "connect";
        WsDevice d = null;
        try {
            d = WsDevice.connect(baseUrl);
            step = "hello";
            d.send("{\"v\":1,\"type\":\"hello\",\"deviceId\":\"w\",\"deviceType\":\"web\",\"protocolVersion\":1}");
            JsonObject f = d.next();
            if (!f.getString("type").equals("hello")) {
                return wsOutcome(d, step, f);
            }
            step = "login";
            d.send("{\"v\":1,\"type\":\"login\",\"token\":\"" + token + "\"}");
            f = d.next();
            if (!f.getString("type").equals("login")) {
                return wsOutcome(d, step, f);
            }
            step = "friendOp";
            d.send("{\"v\":1,\"type\":\"friendOp\",\"op\":\"counts\",\"seq\":1}");
            f = d.next();
            if (!f.getString("type").equals("friendOpRet") || !f.getString("result", "").equals("ok")) {
                return wsOutcome(d, step, f);
            }
            step = "heartbeat";
            d.send("{\"v\":1,\"type\":\"heartbeat\"}");
            f = d.next();
            if (!f.getString("type").equals("heartbeat")) {
                return wsOutcome(d, step, f);
            }
            step = "logout";
            d.send("{\"v\":1,\"type\":\"logout\"}");
            f = d.next();
            if (!f.getString("type").equals("logout")) {
                return wsOutcome(d, step, f);
            }
            int code = d.closeCode();
            return new Outcome("websocket", System.nanoTime(), code == 1000 ? Kind.OK : Kind.WRONG, "logout closed " + code);
        } catch (Exception | AssertionError e) {
            return new Outcome("websocket", System.nanoTime(), Kind.WRONG, step + ": " + e);
        } finally {
            if (d != null && !d.closed.isDone()) {
                d.socket.abort();
            }
        }
    }

    /** Anything but the expected answer must be error server-busy and a close with 1013 (try again later). */
    private static Outcome wsOutcome(WsDevice d, String step, JsonObject frame) throws Exception {
        boolean busy = frame.getString("type").equals("error") && frame.getString("code", "").equals("server-busy");
        int code = d.closeCode();
        return new Outcome("websocket", System.nanoTime(), busy && code == 1013 ? Kind.UNAVAILABLE : Kind.WRONG,
                step + ": " + frame + ", closed " + code);
    }

    private static void awaitHealthy(Http http) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            try {
                if (http.get("api/health", null).statusCode() == 200) {
                    return;
                }
            } catch (AssertionError e) {
                // not answering yet
            }
            sleep(200);
        }
    }

    /** Per path: answers by kind before, during and after the outage, and the recovery time. */
    private static String summary(List<Outcome> all, Timeline t) {
        Map<String, String> lines = new TreeMap<>();
        all.stream().collect(Collectors.groupingBy(Outcome::path)).forEach((path, list) -> {
            Map<String, Long> counts = list.stream().collect(Collectors.groupingBy(o -> (o.at < t.stopAsked ? "before "
                    : o.at < t.startAsked || t.started == 0 ? "down " : "after ") + o.kind, TreeMap::new, Collectors.counting()));
            String recovery = list.stream().filter(o -> t.started != 0 && o.at > t.started && o.kind == Kind.OK).findFirst()
                    .map(o -> String.format("%.2f s", (o.at - t.started) / 1e9)).orElse("none");
            lines.put(path, counts + ", back after " + recovery);
        });
        return String.format("stop took %.2f s, start %.2f s; %s", (t.stopped - t.stopAsked) / 1e9,
                (t.started - t.startAsked) / 1e9,
                lines.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).collect(Collectors.joining("; ")));
    }
}
