package io.roost.bench;

import io.roost.presence.mqtt.MqttStatusEvent;
import io.roost.presence.rtc.AgoraSignature;
import io.roost.presence.rtc.MemberTransitions;
import io.roost.presence.rtc.NcsNotice;
import jakarta.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;

/**
 * The fault harness's load (faults/*.sh): a steady mixed load through one address (the load
 * balancer, or a node) — signed Agora notifications, MQTT client notifications put on the broker
 * as the MQTT service does, device sessions (login, heartbeats, acknowledged chat pushes) and
 * one-to-one chat over REST — keeping its own record of every answer, until the script creates
 * {@code OUT/stop}. Like NCS, the MQTT service and devices, it sends again what got no success
 * (same noticeId, same message, same sendId; a closed device connects again and logs in) until it
 * is acknowledged. Then it checks the outcome against that record and prints one
 * {@code PASS|FAIL <check>: <detail>} line per check; the script counts them.
 *
 * <p>{@code OUT/fault-start} and {@code OUT/fault-end} (epoch ms, written by the script) bound the
 * fault: answers are judged by when they came. {@code --scenario} picks the checks that apply:
 * {@code broker-outage} (no request that needs no broker fails), {@code db-restart} (every failure
 * is a 503 service-unavailable with Retry-After, and each stream succeeds again within 10 s of the
 * return), {@code kill-node} (failures are allowed while the node dies; they are resent).
 */
public final class FaultLoad {

    static final Duration BACK_WITHIN = Duration.ofSeconds(10);
    private static final Pattern STACK_FRAME = Pattern.compile("\\bat [\\w$.]+\\(");
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    /** One answer as the client saw it: -1 for no answer (refused, reset, timed out). */
    record Answer(String stream, long atMs, int status, boolean properUnavailable, String detail) {
    }

    private final Map<String, String> o;
    private final String url;
    private final Path out;
    private final String run = Long.toHexString(System.currentTimeMillis());
    private final Queue<Answer> answers = new ConcurrentLinkedQueue<>();
    private final List<String> results = new ArrayList<>();
    private volatile boolean loading = true;
    private String adminAuth;

    private FaultLoad(Map<String, String> o) {
        this.o = o;
        this.url = o.getOrDefault("url", "http://127.0.0.1:8000");
        this.out = Path.of(o.getOrDefault("out", "target/faults"));
    }

    public static void main(String[] args) throws Exception {
        FaultLoad load = new FaultLoad(BenchArgs.parse(args));
        int failed = load.run();
        System.exit(failed == 0 ? 0 : 1);
    }

    private int run() throws Exception {
        Files.createDirectories(out);
        String scenario = o.getOrDefault("scenario", "broker-outage");
        int pairs = Integer.parseInt(o.getOrDefault("pairs", "50"));
        adminAuth = "Bearer " + WsConnectionsBench.json(request("POST", "/api/v1/auth/tokens", "Basic " + Base64.getEncoder()
                .encodeToString(o.getOrDefault("admin", "admin:faults-admin-password").getBytes(StandardCharsets.UTF_8)), "{}")
                .body()).getString("token");
        Chat chat = new Chat(pairs);
        Rtc rtc = new Rtc(Integer.parseInt(o.getOrDefault("rtc-users", "400")), Integer.parseInt(o.getOrDefault("channels", "20")));
        Mqtt mqtt = new Mqtt(Integer.parseInt(o.getOrDefault("mqtt-clients", "400")));
        FaultDevices devices = new FaultDevices(URI.create(url), chat.users, this::heard);
        devices.connectAll();
        List<Thread> threads = new ArrayList<>();
        threads.addAll(chat.start(2));
        threads.addAll(rtc.start(2));
        threads.addAll(mqtt.start(1));
        threads.add(thread("me", () -> {
            while (loading) {
                record("me", () -> request("GET", "/api/v1/accounts/me", "Bearer " + chat.users.get(0).token(), null), 200);
                Thread.sleep(100);
            }
        }));
        System.out.printf("load: %d chat pairs (also the devices), %d RTC users, %d MQTT clients, through %s%n", pairs,
                rtc.users, mqtt.clients, url);
        Files.writeString(out.resolve("started"), Long.toString(System.currentTimeMillis()));
        while (!Files.exists(out.resolve("stop"))) {
            Thread.sleep(200);
        }
        loading = false;
        for (Thread t : threads) {
            t.join(120_000); // a stream finishes resending its last item, however long it takes
        }
        long faultStart = epochOf("fault-start");
        long faultEnd = epochOf("fault-end");
        System.out.printf("load stopped; %d answers recorded; converging%n", answers.size());

        devices.awaitSettled(Duration.ofSeconds(60));
        Thread.sleep(Long.parseLong(o.getOrDefault("settle-ms", "5000"))); // consumers and the outbox catch up
        checkAnswers(scenario, faultStart, faultEnd);
        chat.check(o.get("db-url"));
        devices.check(this, chat);
        if (o.containsKey("back-online-within-ms")) {
            long bound = Long.parseLong(o.get("back-online-within-ms"));
            check("devices-back-online", devices.longestOfflineMs() <= bound, "the longest a device went from losing its connection"
                    + " to its next login: " + devices.longestOfflineMs() + " ms (bound " + bound + " ms)");
        }
        rtc.check();
        mqtt.check();
        devices.close();
        results.forEach(System.out::println);
        return (int) results.stream().filter(r -> r.startsWith("FAIL")).count();
    }

    // ------------------------------------------------------------------------------ answers

    void check(String name, boolean ok, String detail) {
        results.add((ok ? "PASS " : "FAIL ") + name + ": " + detail);
    }

    private void heard(String stream, int status, String detail) {
        answers.add(new Answer(stream, System.currentTimeMillis(), status, status == 503, detail)); // 503: error server-busy
    }

    /** Records the answer of {@code call}; true if it was {@code expected}. */
    private boolean record(String stream, Call call, int expected) {
        HttpResponse<String> r;
        try {
            r = call.call();
        } catch (Exception e) {
            answers.add(new Answer(stream, System.currentTimeMillis(), -1, false, e.toString()));
            return false;
        }
        answers.add(new Answer(stream, System.currentTimeMillis(), r.statusCode(), properUnavailable(r),
                r.statusCode() / 100 == 2 ? "" : r.body()));
        return r.statusCode() == expected || expected == 200 && r.statusCode() / 100 == 2;
    }

    interface Call {
        HttpResponse<String> call() throws Exception;
    }

    /** A 503 service-unavailable problem with Retry-After and no stack trace. */
    static boolean properUnavailable(HttpResponse<String> r) {
        return r.statusCode() == 503 && r.headers().firstValue("Retry-After").filter(v -> v.matches("[1-9][0-9]*")).isPresent()
                && r.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json")
                && r.body().contains("service-unavailable") && !STACK_FRAME.matcher(r.body()).find();
    }

    private void checkAnswers(String scenario, long faultStart, long faultEnd) {
        List<Answer> all = new ArrayList<>(answers);
        Map<String, Map<String, Long>> counts = new TreeMap<>();
        for (Answer a : all) {
            String phase = a.atMs() < faultStart ? "before" : a.atMs() <= faultEnd ? "during" : "after";
            counts.computeIfAbsent(a.stream(), k -> new TreeMap<>()).merge(phase + ":" + a.status(), 1L, Long::sum);
        }
        System.out.println("answers by stream, phase and status: " + counts);
        List<Answer> failures = all.stream().filter(a -> a.status() / 100 != 2 && !a.stream().startsWith("device")).toList();
        String sample = failures.stream().limit(3).map(a -> a.stream() + " " + a.status() + " " + trim(a.detail()))
                .collect(Collectors.joining("; "));
        check("no-500", all.stream().noneMatch(a -> a.status() >= 500 && a.status() != 503),
                "no answer was a 5xx other than 503 (" + all.size() + " answers)");
        switch (scenario) {
            case "broker-outage" -> check("http-needs-no-broker", failures.isEmpty(),
                    failures.size() + " REST/webhook requests failed during the broker outage" + (failures.isEmpty() ? "" : ": " + sample));
            case "db-restart" -> {
                List<Answer> wrong = failures.stream().filter(a -> !a.properUnavailable()).toList();
                check("503-with-retry-after", wrong.isEmpty() && !failures.isEmpty(), failures.size()
                        + " failures, " + wrong.size() + " of them not a 503 service-unavailable with Retry-After"
                        + (wrong.isEmpty() ? "" : ": " + wrong.stream().limit(3).map(a -> a.stream() + " " + a.status() + " "
                        + trim(a.detail())).collect(Collectors.joining("; "))));
                Map<String, Long> back = new TreeMap<>();
                // the streams the outage reached (a device that only heartbeats may not notice a short one)
                for (String stream : failures.stream().map(Answer::stream).collect(Collectors.toSet())) {
                    back.put(stream, all.stream().filter(a -> a.stream().equals(stream) && a.atMs() > faultEnd
                            && a.status() / 100 == 2).mapToLong(a -> a.atMs() - faultEnd).min().orElse(Long.MAX_VALUE));
                }
                check("back-within-10s", !back.isEmpty() && back.values().stream().allMatch(ms -> ms <= BACK_WITHIN.toMillis()),
                        "first success after the database's return, ms per stream: " + back);
            }
            default -> check("failures-resent", true, failures.size() + " requests got no success during the fault; each was resent"
                    + " until answered");
        }
    }

    private static String trim(String s) {
        return s == null ? "" : s.length() > 200 ? s.substring(0, 200) + "…" : s;
    }

    private long epochOf(String file) throws Exception {
        Path p = out.resolve(file);
        return Files.exists(p) ? Long.parseLong(Files.readString(p).trim()) : Long.MAX_VALUE;
    }

    HttpResponse<String> request(String method, String path, String auth, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(15));
        if (auth != null) {
            b.header("Authorization", auth);
        }
        if (body != null) {
            b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    String adminAuth() {
        return adminAuth;
    }

    String url() {
        return url;
    }

    private Thread thread(String name, Interruptible body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Exception e) {
                System.out.println("stream " + name + " ended: " + e);
            }
        }, "fault-" + name);
        t.start();
        return t;
    }

    interface Interruptible {
        void run() throws Exception;
    }

    /** Repeats {@code call} until it answers {@code expected} (a client that resends what got no success). */
    private void untilAcknowledged(String stream, Call call, int expected) throws InterruptedException {
        long giveUp = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (!record(stream, call, expected)) {
            if (System.nanoTime() > giveUp) {
                throw new IllegalStateException(stream + ": no success in 3 minutes");
            }
            Thread.sleep(250);
        }
    }

    // ------------------------------------------------------------------------------ chat

    record User(String uid, String token) {
    }

    /** Pairs of users chatting over REST; every acknowledged send by its sendId. */
    final class Chat {
        final List<User> users = new ArrayList<>();
        final Map<String, String[]> acknowledged = new ConcurrentHashMap<>(); // sendId -> {sender, peer}
        final AtomicLong resends = new AtomicLong();

        Chat(int pairs) throws Exception {
            for (int i = 0; i < pairs * 2; i++) {
                JsonObject r = WsConnectionsBench.json(request("POST", "/api/v1/registrations", null, "{\"username\":\"f" + run + "_" + i
                        + "\",\"deviceType\":\"android\",\"deviceId\":\"f-" + i + "\"}").body());
                users.add(new User(r.getJsonObject("account").getString("id"), r.getJsonObject("token").getString("token")));
            }
        }

        List<Thread> start(int threads) {
            List<Thread> list = new ArrayList<>();
            AtomicLong n = new AtomicLong();
            for (int t = 0; t < threads; t++) {
                list.add(thread("chat-" + t, () -> {
                    while (loading) {
                        long k = n.incrementAndGet();
                        User from = users.get((int) (k % users.size()));
                        User to = users.get((int) ((k % users.size()) ^ 1)); // its pair
                        String sendId = "f" + k;
                        String body = "{\"peer\":\"" + to.uid() + "\",\"sendId\":\"" + sendId + "\",\"type\":\"text\",\"text\":\"m" + k + "\"}";
                        AtomicInteger tries = new AtomicInteger();
                        // 201 stored; 200 the stored answer, when an earlier try was committed by a node
                        // that died before answering (expecting 201 only resent it for minutes)
                        untilAcknowledged("chat", () -> {
                            tries.incrementAndGet();
                            return request("POST", "/api/v1/chat/messages", "Bearer " + from.token(), body);
                        }, 200);
                        resends.addAndGet(tries.get() - 1);
                        acknowledged.put(sendId, new String[] {from.uid(), to.uid()});
                        Thread.sleep(20);
                    }
                }));
            }
            return list;
        }

        /** Every acknowledged send is in both timelines exactly once. */
        void check(String dbUrl) throws Exception {
            Map<String, Integer> rows = new HashMap<>();
            try (Connection c = DriverManager.getConnection(dbUrl, "roost", "roost");
                 PreparedStatement s = c.prepareStatement("SELECT send_id, count(*) FROM chat_timeline"
                         + " WHERE send_id = ANY(?) AND owner_uid = ANY(?) GROUP BY send_id")) {
                s.setArray(1, c.createArrayOf("varchar", acknowledged.keySet().toArray()));
                s.setArray(2, c.createArrayOf("int8", users.stream().map(u -> Long.parseLong(u.uid())).toArray()));
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        rows.put(rs.getString(1), rs.getInt(2));
                    }
                }
            }
            long missing = acknowledged.keySet().stream().filter(id -> !rows.containsKey(id)).count();
            long wrongCount = rows.values().stream().filter(n -> n != 2).count();
            FaultLoad.this.check("chat-acknowledged-stored", missing == 0 && !acknowledged.isEmpty(), acknowledged.size()
                    + " sends acknowledged (" + resends.get() + " resends of unanswered ones), " + missing + " missing from the database");
            FaultLoad.this.check("chat-no-duplicate", wrongCount == 0, wrongCount + " sendIds not exactly once in each of the two timelines");
        }
    }

    // ------------------------------------------------------------------------------ RTC (Agora NCS)

    /** Users joining and leaving channels as broadcasters; each notice resent until answered 200. */
    final class Rtc {
        final int users;
        final int channels;
        final Map<String, MemberTransitions.State> expected = new ConcurrentHashMap<>();
        final AtomicLong acknowledged = new AtomicLong();

        Rtc(int users, int channels) {
            this.users = users;
            this.channels = channels;
        }

        String channel(int u) {
            return "f" + run + "-ch" + (u % channels);
        }

        List<Thread> start(int threads) {
            List<Thread> list = new ArrayList<>();
            String secret = o.getOrDefault("secret", "faults-secret");
            for (int t = 0; t < threads; t++) {
                int lane = t;
                list.add(thread("rtc-" + t, () -> {
                    long[] seq = new long[users];
                    java.util.Random random = new java.util.Random(lane);
                    for (long n = 0; loading; n++) {
                        int u = lane + threads * random.nextInt(users / threads); // each lane owns its users
                        seq[u]++;
                        NcsNotice notice = new NcsNotice(run + "-" + lane + "-" + n, seq[u] % 2 == 1 ? 103 : 104, 0, channel(u),
                                u + 1L, seq[u], System.currentTimeMillis() / 1000, 1, 3, null, null);
                        byte[] body = ("{\"noticeId\":\"" + notice.noticeId() + "\",\"productId\":1,\"eventType\":"
                                + notice.eventType() + ",\"notifyMs\":" + System.currentTimeMillis() + ",\"payload\":{\"channelName\":\""
                                + notice.channelName() + "\",\"uid\":" + notice.uid() + ",\"clientSeq\":" + notice.clientSeq()
                                + ",\"ts\":" + notice.ts() + ",\"platform\":1,\"clientType\":3}}").getBytes(StandardCharsets.UTF_8);
                        String signature = AgoraSignature.hmacHex("HmacSHA256", secret, body);
                        untilAcknowledged("agora", () -> HTTP.send(HttpRequest.newBuilder(URI.create(url + "/api/v1/webhooks/agora"))
                                .timeout(Duration.ofSeconds(15)).header("Content-Type", "application/json")
                                .header("Agora-Signature-V2", signature).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                                HttpResponse.BodyHandlers.ofString()), 200);
                        acknowledged.incrementAndGet();
                        expected.merge(notice.channelName() + "/" + notice.uid(), MemberTransitions.apply(null, notice, null),
                                (old, x) -> MemberTransitions.apply(old, notice, null));
                        Thread.sleep(10);
                    }
                }));
            }
            return list;
        }

        void check() throws Exception {
            int wrong = 0;
            for (int c = 0; c < channels; c++) {
                String channel = "f" + run + "-ch" + c;
                Map<Long, JsonObject> actual = new HashMap<>();
                HttpResponse<String> r = request("GET", "/api/v1/presence/channels/" + channel + "/members?limit=10000", adminAuth, null);
                if (r.statusCode() == 200) {
                    WsConnectionsBench.json(r.body()).getJsonArray("members")
                            .forEach(m -> actual.put(m.asJsonObject().getJsonNumber("uid").longValue(), m.asJsonObject()));
                }
                for (var e : expected.entrySet()) {
                    if (e.getKey().startsWith(channel + "/")) {
                        JsonObject got = actual.get(Long.parseLong(e.getKey().substring(channel.length() + 1)));
                        MemberTransitions.State want = e.getValue();
                        if (got == null ? want.online() : got.getBoolean("online") != want.online()
                                || got.getJsonNumber("clientSeq").longValue() != want.clientSeq()) {
                            wrong++;
                        }
                    }
                }
            }
            FaultLoad.this.check("agora-presence-exact", wrong == 0 && !expected.isEmpty(), acknowledged.get() + " notifications answered 200; "
                    + wrong + " of " + expected.size() + " (channel, uid) not in the state of their last notification");
        }
    }

    // ------------------------------------------------------------------------------ MQTT

    /** MQTT clients connecting and disconnecting, each notification put on the broker until it takes it. */
    final class Mqtt {
        final int clients;
        final String group = "GID_F" + run.toUpperCase();
        final Queue<MqttIngestBench.Event> stored = new ConcurrentLinkedQueue<>();
        final AtomicLong sendFailures = new AtomicLong();
        final DefaultMQProducer producer;

        Mqtt(int clients) throws Exception {
            this.clients = clients;
            producer = new DefaultMQProducer("roost-faults-mqtt");
            producer.setNamesrvAddr(o.getOrDefault("namesrv", "127.0.0.1:19876"));
            producer.setVipChannelEnabled(false);
            producer.setPollNameServerInterval(2000);
            producer.setInstanceName("faults-" + run);
            producer.start();
        }

        List<Thread> start(int threads) {
            String topic = o.getOrDefault("mqtt-topic", "GID_ROOST_MQTT");
            return List.of(thread("mqtt", () -> {
                long[] clock = new long[clients];
                int[] connection = new int[clients];
                boolean[] connected = new boolean[clients];
                java.util.Random random = new java.util.Random(7);
                try {
                    while (loading) {
                        int c = random.nextInt(clients);
                        clock[c]++;
                        String clientId = group + "@@@d" + c;
                        MqttIngestBench.Event e = connected[c]
                                ? new MqttIngestBench.Event(clientId, Integer.toHexString(c) + "x" + connection[c],
                                MqttStatusEvent.Type.DISCONNECT, 1_700_000_000L + clock[c])
                                : new MqttIngestBench.Event(clientId, Integer.toHexString(c) + "x" + (++connection[c]),
                                MqttStatusEvent.Type.CONNECT, 1_700_000_000L + clock[c]);
                        connected[c] = !connected[c];
                        Message m = new Message(topic, e.type().wire(), e.json().getBytes(StandardCharsets.UTF_8));
                        while (true) {
                            try {
                                producer.send(m, 3000);
                                break;
                            } catch (Exception failed) {
                                sendFailures.incrementAndGet(); // the MQTT service keeps it and tries again
                                Thread.sleep(500);
                            }
                        }
                        stored.add(e);
                        Thread.sleep(10);
                    }
                } finally {
                    producer.shutdown();
                }
            }));
        }

        void check() throws Exception {
            Map<String, Boolean> expected = MqttIngestBench.oracle(new ArrayList<>(stored));
            Map<String, Boolean> actual = Map.of();
            long wrong = expected.size();
            long deadline = System.nanoTime() + BACK_WITHIN.toNanos() * 6;
            while (wrong > 0 && System.nanoTime() < deadline) { // the consumers may still be applying the backlog
                actual = MqttIngestBench.clientsOnline(HTTP, url, adminAuth, group);
                Map<String, Boolean> a = actual;
                wrong = expected.entrySet().stream().filter(e -> !e.getValue().equals(a.getOrDefault(e.getKey(), false))).count();
                if (wrong > 0) {
                    Thread.sleep(1000);
                }
            }
            FaultLoad.this.check("mqtt-presence-exact", wrong == 0 && !expected.isEmpty(), stored.size() + " notifications stored by the broker ("
                    + sendFailures.get() + " sends refused and repeated); " + wrong + " of " + expected.size()
                    + " clients not in the state of their last notification");
        }
    }
}
