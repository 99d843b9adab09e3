package io.roost.bench;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One-to-one chat on Roost (issue 24): users in pairs, each with one device (some with a second), all
 * logged in over WebSocket through {@link LeanWebSockets}; every pair chats at a paced aggregate rate
 * ({@code chatOp send}); every device acknowledges every {@code chatMsg} ({@code chatAck}, cumulative)
 * and each user's first device reports reads ({@code chatOp read}) periodically. A send counts when its
 * {@code chatOpRet} arrives (the server answers after commit). Times send→answer and send→push (the
 * {@code chatMsg} at a device of the recipient). With {@code --drop=F}, a fraction F of the devices drop
 * their TCP connection (reset, no close frame) in the middle of the measured phase, reconnect, resend
 * what was unanswered (same sendId) and catch up over REST. At the end it checks, on the client and in
 * PostgreSQL, that every message is in both timelines once, in order, and that every device holds each
 * message of its conversation exactly once. Run by bench/chat.sh, which prints the server's figures.
 * Protocol to the script: prints {@code WARMED} after the warm-up and (with {@code --go-file}) keeps
 * chatting until that file exists; drains the backlog the warm-up left ({@code --drain} seconds at
 * most, see {@link #awaitSteady}); then {@code MEASURE_START <epoch ms>} and {@code MEASURE_END <epoch
 * ms>}; then {@code SETTLED} and waits for {@code <go-file>.heap} before closing the connections.
 */
public final class ChatBench {

    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    // options
    static int rate;
    static long heartbeatNs;
    static long readNs;
    static int maxInFlight;
    static boolean acks;

    static LeanWebSockets client;
    static User[] users;
    static Dev[] devs;
    static Random rnd;
    static String url;

    // state, selector thread only
    static long measureFrom = Long.MAX_VALUE;
    static long measureTo = Long.MAX_VALUE;
    static int inFlight;
    static long sent;
    static long sentMeasured;
    static long answeredMeasured;
    static final ChatStats.Skips SKIPPED = new ChatStats.Skips();
    static long noDeviceOnline;
    static long answeredOk;
    static long resentAnswers;
    static final ChatStats.Counts FAILS = new ChatStats.Counts();
    static final ChatStats.Counts ERRORS = new ChatStats.Counts();
    static final ChatStats.Counts KICKS = new ChatStats.Counts();
    static final ChatStats.Counts RECEIPTS = new ChatStats.Counts();
    static final ChatStats.Counts READS = new ChatStats.Counts();
    static long acksSent;
    static long pushes;
    /** A message pushed twice to a device that never dropped its connection. */
    static long pushDuplicates;
    /** Pushed after the device already had it from its catch-up (the push was on its way): expected. */
    static long pushAfterCatchup;
    /** Pushed again to a device that reconnected (it held it from before the drop): expected redelivery. */
    static long pushAfterReconnect;
    /** Pushed again, marked {@code again}: the server's ack wheel did not see the ack in time (by design). */
    static long pushAgainAfterAckTimeout;
    static long catchupGot;
    static long catchupOverlap;
    static long catchupPages;
    static final ChatStats.Latencies ANSWER = new ChatStats.Latencies();
    static final ChatStats.Latencies PUSH = new ChatStats.Latencies();
    static ChatStats.PerSecond pushBySecond = new ChatStats.PerSecond(0);
    static long unexpectedCloses;
    static long reconnects;
    static long resends;
    /**
     * Answers, four longs each: the device and the counter of the answer's sendId
     * ({@code d<device>-<counter>}), its msgId and msgSeq; the DB check loads them. Numbers in one
     * array, not three strings per answer: they live to the end of the run, and every object that
     * survives is copied by the generator's young collections, whose pauses delay the frames it times.
     */
    static long[] answers = new long[4 << 16];
    static int answerCount;

    static final class User {
        int index;
        String uid;
        String token;
        User peer;
        Dev[] devices;
        /** The conversation's highest answered msgSeq (both users of a pair keep the same). */
        long lastSeq;
    }

    /** One device: a connection, what it holds of its one conversation, and its own sends. */
    static final class Dev implements LeanWebSockets.Listener {
        final int index;
        final User user;
        final String deviceType;
        final String deviceId;
        final String token;
        LeanWebSockets.Conn conn;
        int stage; // 0 connecting, 1 hello sent, 2 logged in
        Runnable onLogin;
        String failure;
        final BitSet held = new BitSet();
        final BitSet viaCatchup = new BitSet();
        long heldCount;
        long contiguous;
        long ackedUpTo;
        long readUpTo;
        // sends: the counter is the sendId's suffix
        int counter;
        long[] sentAt = new long[64];
        /**
         * Unanswered sends, by counter (their frames are rebuilt from it for a resend after a
         * reconnect). Bits, not a map of frames: a map's entries are young objects hung from old
         * ones on every send, whose cards the generator's young collections scan in their pauses.
         */
        final BitSet pending = new BitSet();
        boolean dropping;
        int drops;
        /** The highest delivered or read receipt this device got (a chatReceipt, or peerDeliveredSeq on a push or answer). */
        long peerDelivered;

        Dev(int index, User user, String deviceType, String token) {
            this.index = index;
            this.user = user;
            this.deviceType = deviceType;
            this.deviceId = "cb-" + index;
            this.token = token;
        }

        boolean online() {
            return stage == 2 && conn != null && !conn.closed;
        }

        void connect() {
            stage = 0;
            conn = client.connect(this);
        }

        @Override
        public void onOpen(LeanWebSockets.Conn c) {
            stage = 1;
            client.send(c, "{\"v\":1,\"type\":\"hello\",\"deviceId\":\"" + deviceId + "\",\"deviceType\":\"" + deviceType + "\"}");
        }

        @Override
        public void onText(LeanWebSockets.Conn c, String f) {
            if (c != conn) {
                return; // a frame of a connection this device already dropped
            }
            String type = ChatStats.type(f);
            if (type == null) {
                ERRORS.add("untyped");
                return;
            }
            switch (type) {
                case "chatMsg" -> chatMsg(f);
                case "chatOpRet" -> chatOpRet(f);
                case "heartbeat" -> { }
                case "chatReceipt" -> {
                    String kind = ChatStats.str(f, "kind");
                    RECEIPTS.add(kind);
                    // a read moves the reader's delivered cursor too (read implies delivered), with a read receipt only
                    peerDelivered = Math.max(peerDelivered, ChatStats.num(f, "seq", 0));
                }
                case "chatRead" -> RECEIPTS.add("chatRead"); // a read by one of this user's devices
                case "hello" -> client.send(c, "{\"v\":1,\"type\":\"login\",\"token\":\"" + token + "\"}");
                case "login" -> {
                    stage = 2;
                    Runnable r = onLogin;
                    onLogin = null;
                    if (r != null) {
                        r.run();
                    }
                }
                case "kick" -> KICKS.add(ChatStats.str(f, "reason"));
                case "error" -> {
                    String code = ChatStats.str(f, "code");
                    ERRORS.add(code);
                    if (stage < 2) {
                        failure = f;
                    }
                }
                default -> ERRORS.add("frame:" + type);
            }
        }

        void chatMsg(String f) {
            long seq = ChatStats.num(f, "seq", -1);
            long now = System.nanoTime();
            pushes++;
            countCarriedReceipt(f);
            if (seq <= 0) {
                ERRORS.add("chatMsg-without-seq");
                return;
            }
            if (held.get((int) seq)) {
                if (f.contains("\"again\":true")) {
                    pushAgainAfterAckTimeout++;
                } else if (viaCatchup.get((int) seq)) {
                    pushAfterCatchup++;
                } else if (drops > 0) {
                    pushAfterReconnect++;
                } else {
                    pushDuplicates++;
                }
            } else {
                hold(seq);
                String sender = ChatStats.str(f, "senderUid");
                if (!user.uid.equals(sender)) { // a device of the recipient: send→push
                    long at = sentAtOf(ChatStats.str(f, "sendId"));
                    if (at >= measureFrom && at < measureTo) {
                        PUSH.add(now - at);
                        pushBySecond.add((int) ((at - measureFrom) / 1_000_000_000L), now - at);
                    }
                }
            }
            ack();
        }

        /** A delivered receipt that rode on a push or an answer (the same transaction moved the peer's cursor). */
        void countCarriedReceipt(String f) {
            if (f.contains("\"peerDeliveredSeq\":")) {
                RECEIPTS.add("delivered-carried");
                peerDelivered = Math.max(peerDelivered, ChatStats.num(f, "peerDeliveredSeq", 0));
            }
        }

        void hold(long seq) {
            held.set((int) seq);
            heldCount++;
            while (held.get((int) contiguous + 1)) {
                contiguous++;
            }
        }

        void ack() {
            if (acks && contiguous > ackedUpTo && online()) {
                ackedUpTo = contiguous;
                acksSent++;
                client.send(conn, "{\"v\":1,\"type\":\"chatAck\",\"peer\":\"" + user.peer.uid + "\",\"seq\":" + contiguous + "}");
            }
        }

        void chatOpRet(String f) {
            String op = ChatStats.str(f, "op");
            boolean ok = "ok".equals(ChatStats.str(f, "result"));
            if ("read".equals(op)) {
                READS.add(ok ? "ok" : ChatStats.str(f, "code"));
                return;
            }
            if (!"send".equals(op)) {
                READS.add("other-op:" + op + ":" + ChatStats.str(f, "code"));
                return;
            }
            String reqSeq = ChatStats.str(f, "seq"); // "s<counter>"
            int k = Integer.parseInt(reqSeq.substring(1));
            if (!pending.get(k)) {
                ERRORS.add("answer-twice");
                return;
            }
            pending.clear(k);
            inFlight--;
            long now = System.nanoTime();
            if (!ok) {
                FAILS.add(ChatStats.str(f, "code"));
                return;
            }
            answeredOk++;
            countCarriedReceipt(f);
            if (f.contains("\"resent\":true")) {
                resentAnswers++;
            }
            long at = sentAt[k];
            if (at >= measureFrom && at < measureTo) {
                ANSWER.add(now - at);
            }
            if (now >= measureFrom && now < measureTo) {
                answeredMeasured++;
            }
            long msgSeq = ChatStats.num(f, "msgSeq", -1);
            String msgId = ChatStats.str(f, "msgId"); // a string in the frame
            answer(ChatStats.str(f, "sendId"), msgId == null ? -1 : Long.parseLong(msgId), msgSeq);
            if (msgSeq > 0 && !held.get((int) msgSeq)) {
                hold(msgSeq); // the sending connection gets no push of its own message: the answer is its copy
            }
            if (msgSeq > user.lastSeq) {
                user.lastSeq = msgSeq;
                user.peer.lastSeq = msgSeq;
            }
        }

        void send() {
            int k = counter++;
            if (k == sentAt.length) {
                sentAt = Arrays.copyOf(sentAt, k * 2);
            }
            String frame = sendFrame(k);
            long now = System.nanoTime();
            sentAt[k] = now;
            pending.set(k);
            inFlight++;
            sent++;
            if (now >= measureFrom && now < measureTo) {
                sentMeasured++;
            }
            client.send(conn, frame);
        }

        /** The send with counter {@code k}: the same frame every time (a resend has the same sendId and body). */
        String sendFrame(int k) {
            return "{\"v\":1,\"type\":\"chatOp\",\"seq\":\"s" + k + "\",\"op\":\"send\",\"peer\":\"" + user.peer.uid
                    + "\",\"sendId\":\"d" + index + "-" + k + "\",\"msgType\":\"text\",\"body\":{\"text\":\"message " + k + " from device "
                    + index + "\"}}";
        }

        void heartbeat() {
            if (online()) {
                client.send(conn, "{\"v\":1,\"type\":\"heartbeat\"}");
            }
            client.schedule(System.nanoTime() + heartbeatNs, this::heartbeat);
        }

        void read() {
            if (online() && contiguous > readUpTo) {
                readUpTo = contiguous;
                client.send(conn, "{\"v\":1,\"type\":\"chatOp\",\"seq\":\"r" + contiguous + "\",\"op\":\"read\",\"peer\":\"" + user.peer.uid
                        + "\",\"readSeq\":" + contiguous + "}");
            }
            client.schedule(System.nanoTime() + readNs, this::read);
        }

        /** Drops the connection like a lost network, then reconnects after {@code delayNs}. */
        void drop(long delayNs) {
            dropping = true;
            drops++;
            client.abort(conn);
            client.schedule(System.nanoTime() + delayNs, this::reconnect);
        }

        void reconnect() {
            reconnects++;
            dropping = false;
            onLogin = () -> {
                for (int k = pending.nextSetBit(0); k >= 0; k = pending.nextSetBit(k + 1)) { // same sendId: the server answers a stored one with resent
                    resends++;
                    client.send(conn, sendFrame(k));
                }
                ack();
                catchUp(contiguous);
            };
            connect();
        }

        /** Pages the conversation after {@code after} over REST, on the HTTP pool; merges on the selector thread. */
        void catchUp(long after) {
            CATCHUP.submit(() -> {
                try {
                    HttpRequest r = HttpRequest.newBuilder(URI.create(url + "/api/v1/chat/users/" + user.uid + "/conversations/"
                            + user.peer.uid + "/messages?after=" + after + "&limit=100")).timeout(Duration.ofSeconds(60))
                            .header("Authorization", "Bearer " + token).GET().build();
                    HttpResponse<String> resp = HTTP.send(r, HttpResponse.BodyHandlers.ofString());
                    if (resp.statusCode() != 200) {
                        client.execute(() -> ERRORS.add("catch-up-" + resp.statusCode()));
                        return;
                    }
                    JsonObject page = json(resp.body());
                    long[] seqs = page.getJsonArray("items").stream().mapToLong(i -> i.asJsonObject().getJsonNumber("seq").longValue())
                            .toArray();
                    JsonValue next = page.get("next");
                    String nextCursor = next == null || next.getValueType() == JsonValue.ValueType.NULL ? null
                            : page.getString("next");
                    client.execute(() -> {
                        catchupPages++;
                        for (long s : seqs) {
                            if (held.get((int) s)) {
                                catchupOverlap++;
                            } else {
                                hold(s);
                                viaCatchup.set((int) s);
                                catchupGot++;
                            }
                        }
                        ack();
                        if (nextCursor != null) {
                            catchUp(Long.parseLong(nextCursor));
                        }
                    });
                } catch (Exception e) {
                    client.execute(() -> ERRORS.add("catch-up: " + e));
                }
            });
        }

        @Override
        public void onClosed(LeanWebSockets.Conn c, int code) {
            if (c != conn) {
                return;
            }
            if (stage < 2 && failure == null) {
                failure = "closed " + code;
            }
            if (!dropping && !CLOSING) {
                unexpectedCloses++;
                if (stage == 2) { // kicked (heartbeat_timeout, ack_timeout) or cut: reconnect and catch up, as a client must
                    dropping = true;
                    drops++;
                    client.schedule(System.nanoTime() + 1_000_000_000L + (long) (Math.random() * 2_000_000_000L), this::reconnect);
                }
            }
            if (stage < 2) {
                Runnable r = onLogin;
                onLogin = null;
                if (r != null && !dropping) {
                    LOGIN_FAILED.run();
                }
            }
            stage = 0;
        }
    }

    static final ExecutorService CATCHUP = Executors.newFixedThreadPool(4);
    static volatile boolean CLOSING;
    static Runnable LOGIN_FAILED = () -> { };

    static long sentAtOf(String sendId) {
        int d = sendIdDevice(sendId);
        if (d < 0) {
            return Long.MIN_VALUE;
        }
        int k = sendIdCounter(sendId);
        Dev dev = devs[d];
        return k < dev.counter ? dev.sentAt[k] : Long.MIN_VALUE;
    }

    /** The device index of a sendId {@code d<device>-<counter>}; -1 if it is not one of this generator's. */
    static int sendIdDevice(String sendId) {
        if (sendId == null || sendId.charAt(0) != 'd') {
            return -1;
        }
        return Integer.parseInt(sendId, 1, sendId.indexOf('-'), 10);
    }

    static int sendIdCounter(String sendId) {
        return Integer.parseInt(sendId, sendId.indexOf('-') + 1, sendId.length(), 10);
    }

    static void answer(String sendId, long msgId, long msgSeq) {
        if (answerCount * 4 == answers.length) {
            answers = Arrays.copyOf(answers, answers.length * 2);
        }
        int d = sendIdDevice(sendId);
        int at = 4 * answerCount++;
        answers[at] = d;
        answers[at + 1] = d < 0 ? -1 : sendIdCounter(sendId);
        answers[at + 2] = msgId;
        answers[at + 3] = msgSeq;
    }

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable e) { // the client's threads are not daemons: without exit, a failure would hang the script
            e.printStackTrace();
            System.exit(1);
        }
    }

    static void run(String[] args) throws Exception {
        Map<String, String> o = BenchArgs.parse(args);
        url = o.getOrDefault("url", "http://127.0.0.1:8080");
        int nUsers = Integer.parseInt(o.getOrDefault("users", "10000")) / 2 * 2;
        double second = Double.parseDouble(o.getOrDefault("second-device", "0.1"));
        rate = Integer.parseInt(o.getOrDefault("rate", "5000"));
        int duration = Integer.parseInt(o.getOrDefault("duration", "60"));
        int warmup = Integer.parseInt(o.getOrDefault("warmup", "30"));
        double drop = Double.parseDouble(o.getOrDefault("drop", "0"));
        heartbeatNs = Long.parseLong(o.getOrDefault("heartbeat", "30")) * 1_000_000_000L;
        readNs = Long.parseLong(o.getOrDefault("read-interval", "10")) * 1_000_000_000L;
        maxInFlight = Integer.parseInt(o.getOrDefault("max-in-flight", "20000"));
        int settle = Integer.parseInt(o.getOrDefault("settle", "45"));
        // Room for the whole run up front (the JIT wait and the drain included): an array that
        // doubles copies megabytes, and a doubling in the measured phase would pause the generator.
        long sends = (long) rate * (warmup + duration + 300);
        answers = new long[(int) Math.min(Integer.MAX_VALUE - 8, 4 * sends)];
        ANSWER.reserve((int) Math.min(Integer.MAX_VALUE - 8, (long) rate * duration * 2));
        PUSH.reserve((int) Math.min(Integer.MAX_VALUE - 8, (long) rate * duration * 3));
        int drainSeconds = Integer.parseInt(o.getOrDefault("drain", "60"));
        int inFlightLogins = Integer.parseInt(o.getOrDefault("in-flight", "200"));
        acks = Boolean.parseBoolean(o.getOrDefault("acks", "true"));
        long seed = o.containsKey("seed") ? Long.parseLong(o.get("seed")) : System.nanoTime() % 1_000_000_007L;
        String dbUrl = o.get("db-url");
        Path goFile = o.containsKey("go-file") ? Path.of(o.get("go-file")) : null;
        rnd = new Random(seed);
        String run = Long.toHexString(System.nanoTime());
        System.out.printf("users=%d second-device=%.2f rate=%d/s duration=%ds warmup=%ds drop=%.2f read-interval=%ds acks=%s seed=%d run=%s%n",
                nUsers, second, rate, duration, warmup, drop, readNs / 1_000_000_000L, acks, seed, run);

        // 1. Users (anonymous registration with a device token), a second device's unbound token for some.
        long t0 = System.nanoTime();
        users = new User[nUsers];
        ExecutorService pool = Executors.newFixedThreadPool(32);
        List<Future<?>> setup = new ArrayList<>();
        boolean[] two = new boolean[nUsers];
        for (int i = 0; i < nUsers; i++) {
            two[i] = rnd.nextDouble() < second;
        }
        for (int i = 0; i < nUsers; i++) {
            int k = i;
            setup.add(pool.submit(() -> {
                User u = new User();
                u.index = k;
                JsonObject body = json(post(url + "/api/v1/registrations", null, "{\"username\":\"cb" + run + "_" + k
                        + "\",\"deviceType\":\"android\",\"deviceId\":\"cb-" + k + "\"}", 201));
                u.uid = body.getJsonObject("account").getString("id");
                u.token = body.getJsonObject("token").getString("token");
                users[k] = u;
                return null;
            }));
        }
        for (Future<?> f : setup) {
            f.get();
        }
        // device indexes: users first (android), then the second devices (ios, unbound token)
        List<Dev> all = new ArrayList<>();
        for (User u : users) {
            Dev d = new Dev(all.size(), u, "android", u.token);
            all.add(d);
            u.devices = new Dev[] {d};
        }
        List<Future<String>> extra = new ArrayList<>();
        for (int i = 0; i < nUsers; i++) {
            if (two[i]) {
                User u = users[i];
                extra.add(pool.submit(() -> json(post(url + "/api/v1/auth/tokens", "Bearer " + u.token, "{}", 201)).getString("token")));
            } else {
                extra.add(null);
            }
        }
        for (int i = 0; i < nUsers; i++) {
            if (two[i]) {
                User u = users[i];
                Dev d = new Dev(all.size(), u, "ios", extra.get(i).get());
                all.add(d);
                u.devices = new Dev[] {u.devices[0], d};
            }
        }
        devs = all.toArray(new Dev[0]);
        // pairs: a shuffled order, two by two
        List<User> order = new ArrayList<>(Arrays.asList(users));
        java.util.Collections.shuffle(order, rnd);
        for (int i = 0; i < nUsers; i += 2) {
            order.get(i).peer = order.get(i + 1);
            order.get(i + 1).peer = order.get(i);
        }
        System.out.printf("setup: %d users, %d pairs, %d devices (%d second devices) in %.1f s%n", nUsers, nUsers / 2, devs.length,
                devs.length - nUsers, (System.nanoTime() - t0) / 1e9);

        // 2. All devices log in, inFlightLogins at a time.
        URI ws = URI.create(url.replaceFirst("^http", "ws") + "/ws");
        client = new LeanWebSockets(ws.getHost(), ws.getPort(), ws.getPath());
        t0 = System.nanoTime();
        AtomicInteger next = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        CompletableFuture<Void> allIn = new CompletableFuture<>();
        Runnable[] open = new Runnable[1];
        Runnable finished = () -> {
            if (done.incrementAndGet() == devs.length) {
                allIn.complete(null);
            }
            open[0].run();
        };
        LOGIN_FAILED = () -> {
            failed.incrementAndGet();
            finished.run();
        };
        open[0] = () -> {
            int k = next.getAndIncrement();
            if (k >= devs.length) {
                return;
            }
            Dev d = devs[k];
            d.onLogin = () -> {
                long now = System.nanoTime();
                client.schedule(now + (long) (Math.random() * heartbeatNs), d::heartbeat);
                if (d == d.user.devices[0]) {
                    client.schedule(now + (long) (Math.random() * readNs), d::read);
                }
                finished.run();
            };
            d.connect();
        };
        for (int i = 0; i < Math.min(inFlightLogins, devs.length); i++) {
            client.execute(open[0]);
        }
        allIn.get(30, TimeUnit.MINUTES);
        System.out.printf("logged in: %d devices in %.1f s (%d failed%s)%n", devs.length - failed.get(), (System.nanoTime() - t0) / 1e9,
                failed.get(), failed.get() == 0 ? "" : ", first: " + Arrays.stream(devs).filter(d -> d.failure != null)
                        .map(d -> d.failure).findFirst().orElse("?"));
        if (failed.get() > 0) {
            throw new IllegalStateException("logins failed");
        }
        LOGIN_FAILED = () -> ERRORS.add("re-login-failed");

        // 3. Chat, paced: every millisecond, the messages due by now. Warm-up, then (once the script says
        // go) the measured phase; a drop in its middle.
        long start = System.nanoTime();
        long[] due = {0};
        boolean[] stop = {false};
        Runnable[] pace = new Runnable[1];
        pace[0] = () -> {
            if (stop[0]) {
                return;
            }
            long now = System.nanoTime();
            long target = (now - start) * rate / 1_000_000_000L;
            while (due[0] < target) {
                due[0]++;
                if (inFlight >= maxInFlight) {
                    SKIPPED.add(now, measureFrom, measureTo);
                    continue;
                }
                User u = users[rnd.nextInt(users.length)];
                Dev d = u.devices[rnd.nextInt(u.devices.length)];
                if (!d.online()) {
                    d = Arrays.stream(u.devices).filter(Dev::online).findFirst().orElse(null);
                }
                if (d == null) {
                    noDeviceOnline++;
                    continue;
                }
                d.send();
            }
            client.schedule(now + 1_000_000L, pace[0]);
        };
        client.execute(pace[0]);
        Thread.sleep(warmup * 1000L);
        System.out.println(progress("WARMED"));
        System.out.flush();
        if (goFile != null) {
            while (!Files.exists(goFile)) {
                Thread.sleep(100);
            }
        }
        awaitSteady(drainSeconds);
        onClient(() -> {
            measureFrom = System.nanoTime();
            measureTo = measureFrom + duration * 1_000_000_000L;
            pushBySecond = new ChatStats.PerSecond(duration);
            System.out.println("MEASURE_START " + System.currentTimeMillis());
        });
        if (drop > 0) {
            Thread.sleep(duration * 500L);
            onClient(() -> {
                List<Dev> shuffled = new ArrayList<>(Arrays.asList(devs));
                java.util.Collections.shuffle(shuffled, rnd);
                int n = (int) Math.round(devs.length * drop);
                long inflightAtDrop = shuffled.subList(0, n).stream().mapToLong(d -> d.pending.cardinality()).sum();
                for (Dev d : shuffled.subList(0, n)) {
                    d.drop(1_000_000_000L + (long) (rnd.nextDouble() * 2_000_000_000L)); // back within 1-3 s
                }
                System.out.printf("dropped %d devices (reset, no close frame), %d of their sends unanswered%n", n, inflightAtDrop);
            });
            Thread.sleep(duration * 500L);
        } else {
            Thread.sleep(duration * 1000L);
        }
        Thread.sleep(Math.max(0, (measureTo - System.nanoTime()) / 1_000_000));
        onClient(() -> {
            stop[0] = true;
            System.out.println("MEASURE_END " + System.currentTimeMillis());
        });
        System.out.flush();

        // 4. Every send answered; every device holds its whole conversation (the server resends what was not acked).
        long until = System.nanoTime() + 180_000_000_000L;
        while (onClient(() -> inFlight) > 0 && System.nanoTime() < until) {
            Thread.sleep(200);
        }
        until = System.nanoTime() + settle * 1_000_000_000L;
        long missing;
        while ((missing = onClient(ChatBench::missing)) > 0 && System.nanoTime() < until) {
            Thread.sleep(500);
        }
        // the last acknowledgements' receipts come within the delivered hold (1 s) and its flush; the
        // readers report their last reads within a read interval (a read moves the delivered cursor too)
        until = System.nanoTime() + readNs + 10_000_000_000L;
        while (onClient(() -> receiptsBehind() + readsPending()) > 0 && System.nanoTime() < until) {
            Thread.sleep(200);
        }
        System.out.println(progress("SETTLED"));
        System.out.flush();
        if (goFile != null) {
            Path heap = Path.of(goFile + ".heap");
            while (!Files.exists(heap)) {
                Thread.sleep(100);
            }
        }

        // 5. Report and check.
        double seconds = duration;
        long lost = onClient(ChatBench::missing);
        long extraHeld = onClient(() -> Arrays.stream(devs).mapToLong(d -> d.heldCount - Math.min(d.heldCount, d.user.lastSeq)).sum());
        long devicesShort = onClient(() -> Arrays.stream(devs).filter(d -> d.heldCount < d.user.lastSeq).count());
        System.out.printf("sends: %d in the measured %d s (offered %.0f/s), %d answered in it = %.0f durable sends/s; "
                        + "%s, %d with no device of the sender online%n",
                sentMeasured, duration, sentMeasured / seconds, answeredMeasured, answeredMeasured / seconds, SKIPPED.text(maxInFlight),
                noDeviceOnline);
        System.out.printf("send→answer p50 %.1f ms, p99 %.1f ms (n=%d); send→push p50 %.1f ms, p99 %.1f ms (n=%d, recipient devices)%n",
                ANSWER.ms(0.5), ANSWER.ms(0.99), ANSWER.n, PUSH.ms(0.5), PUSH.ms(0.99), PUSH.n);
        System.out.println("send→push " + pushBySecond.p99Line(100));
        System.out.printf("whole run: %d sent, %d answered ok (%d resent), failures %s; pushes %d (duplicates %d; pushed again for a missed ack %d, after catch-up %d, after a reconnect %d), acks sent %d, "
                        + "reads %s, receipts %s, kicks %s, errors %s%n",
                sent, answeredOk, resentAnswers, FAILS, pushes, pushDuplicates, pushAgainAfterAckTimeout, pushAfterCatchup, pushAfterReconnect, acksSent, READS, RECEIPTS, KICKS, ERRORS);
        System.out.printf("reconnects (drops and server closes): %d, %d resends, catch-up %d pages: %d messages got, %d already held; "
                + "connections closed by the server %d (reconnected)%n",
                reconnects, resends, catchupPages, catchupGot, catchupOverlap, unexpectedCloses);
        long receiptsWrong = onClient(ChatBench::receiptsBehind);
        System.out.printf("client outcome: %d messages missing on %d devices, %d held beyond the answered seq; "
                + "%d devices whose last delivered receipt is not their peer's last acknowledgement or read%n", lost, devicesShort, extraHeld, receiptsWrong);
        boolean dbOk = dbUrl == null || checkDatabase(dbUrl);
        boolean ok = dbOk && lost == 0 && extraHeld == 0 && pushDuplicates == 0 && FAILS.total() == 0 && sent == answeredOk
                && receiptsWrong == 0;
        System.out.printf("RESULT sends_per_s=%.0f offered_per_s=%.0f answer_p50_ms=%.1f answer_p99_ms=%.1f push_p50_ms=%.1f push_p99_ms=%.1f "
                        + "devices=%d pairs=%d lost=%d dup=%d kicked=%d db_ok=%s outcome=%s%n",
                answeredMeasured / seconds, sentMeasured / seconds, ANSWER.ms(0.5), ANSWER.ms(0.99), PUSH.ms(0.5), PUSH.ms(0.99),
                devs.length, users.length / 2, lost, pushDuplicates, unexpectedCloses, dbOk, ok ? "PASS" : "FAIL");
        System.out.flush();
        CLOSING = true;
        onClient(() -> {
            for (Dev d : devs) {
                if (d.conn != null) {
                    client.close(d.conn);
                }
            }
            return 0L;
        });
        client.close();
        CATCHUP.shutdownNow();
        pool.shutdownNow();
        System.exit(0);
    }

    /**
     * Devices whose highest delivered or read receipt is not the highest seq their peer's devices
     * acknowledged or reported read (the peer's delivered cursor: a read implies delivered): a
     * receipt lost, or one ahead of every acknowledgement. Conversations with a device that dropped are left out: it may have missed
     * receipts while it was away, or its last acknowledgement may not have arrived.
     */
    static long receiptsBehind() {
        long wrong = 0;
        for (Dev d : devs) {
            long acked = 0;
            boolean dropped = d.drops > 0;
            for (Dev p : d.user.peer.devices) {
                acked = Math.max(acked, Math.max(p.ackedUpTo, p.readUpTo));
                dropped |= p.drops > 0; // an acknowledgement sent just before a reset may never have arrived
            }
            if (!dropped && d.peerDelivered != acked) {
                wrong++;
            }
        }
        return wrong;
    }

    /** Reading devices (each user's first) online that hold more than they reported read: a read report is still to come. */
    static long readsPending() {
        return Arrays.stream(devs).filter(d -> d == d.user.devices[0] && d.online() && d.contiguous > d.readUpTo).count();
    }

    /** Messages of their conversation that devices do not hold yet (answered seqs only). */
    static long missing() {
        long m = 0;
        for (Dev d : devs) {
            m += Math.max(0, d.user.lastSeq - d.held.get(1, (int) d.user.lastSeq + 1).cardinality());
        }
        return m;
    }

    /** How long the sends in flight must stay low before the measured phase starts. */
    static final long STEADY_FOR_NS = 3_000_000_000L;

    /**
     * The measured phase starts from a steady state: sends kept going while the script waited for
     * WildFly's JIT and took its diagnostics, and what that left queued (up to the in-flight cap)
     * is drained first, for at most {@code seconds}, until at most 100 ms of sends have been in
     * flight for {@link #STEADY_FOR_NS} on end (a count that dips once, in the middle of a drain,
     * is not a steady state). A server that cannot keep up never gets there, and the line says so.
     */
    static void awaitSteady(int seconds) throws InterruptedException {
        int steady = Math.max(100, rate / 10);
        int atGo = onClient(() -> inFlight);
        long from = System.nanoTime();
        long deadline = from + seconds * 1_000_000_000L;
        long lowSince = atGo <= steady ? from : 0;
        int now = atGo;
        while ((lowSince == 0 || System.nanoTime() - lowSince < STEADY_FOR_NS) && System.nanoTime() < deadline) {
            Thread.sleep(100);
            now = onClient(() -> inFlight);
            if (now > steady) {
                lowSince = 0;
            } else if (lowSince == 0) {
                lowSince = System.nanoTime();
            }
        }
        boolean reached = lowSince != 0 && System.nanoTime() - lowSince >= STEADY_FOR_NS;
        System.out.printf("steady: %d in flight at the go signal, %d after %.1f s (steady is at most %d for %d s on end)%s%n", atGo,
                now, (System.nanoTime() - from) / 1e9, steady, STEADY_FOR_NS / 1_000_000_000L,
                reached ? "" : "; NOT STEADY, measuring anyway");
    }

    static String progress(String what) {
        return onClient(() -> String.format("%s sent=%d answered=%d inflight=%d pushes=%d acks=%d errors=%s", what, sent, answeredOk,
                inFlight, pushes, acksSent, ERRORS));
    }

    /** Runs on the client's thread and waits for the value. */
    static <T> T onClient(java.util.function.Supplier<T> s) {
        CompletableFuture<T> f = new CompletableFuture<>();
        client.execute(() -> {
            try {
                f.complete(s.get());
            } catch (RuntimeException e) {
                f.completeExceptionally(e);
            }
        });
        try {
            return f.get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static void onClient(Runnable r) {
        onClient(() -> {
            r.run();
            return 0;
        });
    }

    /**
     * PostgreSQL: every answered message in both timelines exactly once with its answer's msgId and seq;
     * nothing else stored; each conversation's seqs gap-free 1..last_seq in both timelines; each device's
     * messages in the order it sent them.
     */
    static boolean checkDatabase(String dbUrl) throws Exception {
        try (Connection c = DriverManager.getConnection(dbUrl, "roost", "roost"); Statement st = c.createStatement()) {
            st.execute("CREATE TEMP TABLE bench_answer (send_id varchar(64), msg_id bigint, seq bigint, dev int, k int)");
            org.postgresql.copy.CopyManager copy = c.unwrap(org.postgresql.PGConnection.class).getCopyAPI();
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < 4 * answerCount; i += 4) {
                long d = answers[i], k = answers[i + 1];
                b.append(d < 0 ? "\\N" : "d" + d + "-" + k).append('\t').append(answers[i + 2]).append('\t').append(answers[i + 3])
                        .append('\t').append(d).append('\t').append(k).append('\n');
            }
            copy.copyIn("COPY bench_answer FROM STDIN", new StringReader(b.toString()));
            st.execute("ANALYZE bench_answer");
            String[][] checks = {
                {"answers (sendIds answered more than once count once)", "SELECT count(DISTINCT send_id) FROM bench_answer"},
                {"messages stored (distinct msg_id)", "SELECT count(DISTINCT msg_id) FROM chat_timeline"},
                {"timeline rows", "SELECT count(*) FROM chat_timeline"},
                {"BAD: messages not exactly once in each of the two timelines with one seq",
                    "SELECT count(*) FROM (SELECT msg_id FROM chat_timeline GROUP BY msg_id"
                        + " HAVING count(*) <> 2 OR count(DISTINCT owner_uid) <> 2 OR count(DISTINCT seq) <> 1"
                        + " OR count(DISTINCT send_id) <> 1) x"},
                {"BAD: answers without both timeline rows of that msgId, seq and sendId",
                    "SELECT count(*) FROM (SELECT DISTINCT send_id, msg_id, seq FROM bench_answer) a LEFT JOIN (SELECT msg_id, seq, send_id,"
                        + " count(*) n FROM chat_timeline GROUP BY 1, 2, 3) t USING (msg_id, seq, send_id) WHERE coalesce(t.n, 0) <> 2"},
                {"BAD: one sendId answered with two messages", "SELECT count(*) FROM (SELECT send_id FROM bench_answer GROUP BY send_id"
                        + " HAVING count(DISTINCT msg_id) > 1) x"},
                {"BAD: stored messages no answer names", "SELECT count(DISTINCT msg_id) FROM chat_timeline t WHERE NOT EXISTS"
                        + " (SELECT 1 FROM bench_answer a WHERE a.msg_id = t.msg_id)"},
                {"BAD: timelines whose seqs are not 1..last_seq of their conversation row",
                    "SELECT count(*) FROM (SELECT owner_uid, peer_uid, count(*) n, min(seq) lo, max(seq) hi FROM chat_timeline GROUP BY 1, 2) t"
                        + " LEFT JOIN chat_conversation c ON c.owner_uid = t.owner_uid AND c.peer_uid = t.peer_uid"
                        + " WHERE t.n <> t.hi OR t.lo <> 1 OR t.hi IS DISTINCT FROM c.last_seq"},
                {"BAD: conversations whose two rows' last seqs differ",
                    "SELECT count(*) FROM chat_conversation c LEFT JOIN chat_conversation p ON p.owner_uid = c.peer_uid AND p.peer_uid = c.owner_uid"
                        + " WHERE c.last_seq IS DISTINCT FROM p.last_seq"},
                {"BAD: a device's messages out of its sending order",
                    "SELECT count(*) FROM (SELECT seq, lag(seq) OVER (PARTITION BY dev ORDER BY k) prev"
                        + " FROM (SELECT DISTINCT dev, k, seq FROM bench_answer) d) x WHERE seq <= prev"},
            };
            boolean ok = true;
            long answers = -1;
            for (String[] check : checks) {
                try (ResultSet rs = st.executeQuery(check[1])) {
                    rs.next();
                    long v = rs.getLong(1);
                    System.out.printf("db: %s: %d%n", check[0], v);
                    if (check[0].startsWith("BAD") && v != 0) {
                        ok = false;
                    }
                    if (check[0].startsWith("answers")) {
                        answers = v;
                    }
                    if (check[0].startsWith("messages stored") && v != answers) {
                        ok = false;
                    }
                }
            }
            System.out.println("db check: " + (ok ? "ok" : "FAILED"));
            return ok;
        }
    }

    static String post(String url, String auth, String body, int expect) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (auth != null) {
            b.header("Authorization", auth);
        }
        try {
            HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != expect) {
                throw new IllegalStateException(url + ": " + r.statusCode() + " " + r.body());
            }
            return r.body();
        } catch (java.io.IOException | InterruptedException e) {
            throw new IllegalStateException(url + ": " + e, e);
        }
    }

    static JsonObject json(String s) {
        return Json.createReader(new StringReader(s)).readObject();
    }
}
