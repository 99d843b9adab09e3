package io.roost.bench;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Group chat on Roost (read diffusion), for bench/group-chat.sh: a big chat group (2,000 members, 600
 * online), small groups (20 members, 10 online), a channel (100,000 members, 5,000 online) — every
 * size times {@code --scale} — and a probe group whose online members are all connected straight to
 * node 0 (the other node should get nothing of it). Users register over REST, create and join the
 * groups over REST (open groups admit at once); the online devices log in over WebSocket through the
 * load balancer (the probe's straight to node 0), ask each group's {@code state} (the horizon: what
 * they hold, and {@code joinedSeq}), and acknowledge every push ({@code chatAck {group, seq}}).
 *
 * <p>Phases, each timed and printed ({@code PHASE ...}): warmup and mixed (all three workloads paced;
 * in mixed, the churners go offline and come back, then catch up with {@code chatOp sync}, and late
 * joiners join the big group), big (only the big group, paced: its CPU per push), idle (nothing: a
 * baseline), probe (only the probe group), saturation (the big group, a closed loop of
 * {@code --window} sends in flight). A message's send→last-push is from the send to its push at the
 * last of the group's stable online members (churners and late joiners are left out of the timing, not
 * out of the check). pg_stat_user_tables is read at each phase's edges (rows inserted and updated per
 * message). At the end every device must hold every seq of each of its groups from its horizon (or its
 * join) to the group's last, once, pushes in increasing seq, none at or before its join.
 */
public final class GroupChatBench {

    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    static final int BIG = 0;
    static final int SMALL = 1;
    static final int CHANNEL = 2;
    static final int PROBE = 3;
    /** Not a group: one-to-one messages between pairs of the big group's devices (the direct phase). */
    static final int DIRECT = 4;
    static final String[] KINDS = {"big", "small", "channel", "probe"};

    static String url;
    static LeanWebSockets client;
    /** A device acknowledges a group's pushes at most this often, cumulatively (0: each push at once). */
    static long ackDelayNs;
    static InetSocketAddress node0;
    static Random rnd;
    static User[] users;
    static List<Dev> devs = new ArrayList<>();
    static G big;
    static G channel;
    static G probe;
    static List<G> smalls = new ArrayList<>();
    static Map<String, G> groupsById = new HashMap<>();
    static List<G> allGroups = new ArrayList<>();

    // client-thread state
    static int inFlight;
    static int maxInFlight;
    static long sent;
    static long answeredOk;
    static long pushes;
    static long pushDuplicates;
    static long pushOutOfOrder;
    static long pushAgain;
    static long pushAfterCatchup;
    static long beforeJoin;
    static long catchupGot;
    static long catchupOverlap;
    static long catchupRequests;
    static long skipped;
    static long acksSent;
    static long unexpectedCloses;
    static long directPushes;
    static long receipts;
    /** Pairs of stable devices that send each other one-to-one messages in the direct phase. */
    static List<Dev> directSenders = new ArrayList<>();
    static long reconnects;
    static final ChatStats.Counts FAILS = new ChatStats.Counts();
    static final ChatStats.Counts ERRORS = new ChatStats.Counts();
    static final ChatStats.Counts KICKS = new ChatStats.Counts();
    static Phase phase;
    static boolean closing;

    static final class Phase {
        final String name;
        final double[] rates;
        final int window;
        /** What the closed loop of {@link #window} sends sends: BIG or DIRECT. */
        final int loopKind;
        final int seconds;
        long fromNs;
        long toNs = Long.MAX_VALUE;
        long fromMs;
        long toMs;
        long[] due = new long[4];
        long sends;
        long answered;
        long pushes;
        final ChatStats.Latencies answer = new ChatStats.Latencies();
        Map<String, long[]> rowsFrom;
        Map<String, long[]> rowsTo;

        Phase(String name, int seconds, double[] rates, int window) {
            this(name, seconds, rates, window, BIG);
        }

        Phase(String name, int seconds, double[] rates, int window, int loopKind) {
            this.name = name;
            this.seconds = seconds;
            this.rates = rates;
            this.window = window;
            this.loopKind = loopKind;
        }
    }

    static final class G {
        final int kind;
        String id;
        int index;
        int[] members; // user indexes; members[0] the owner
        final List<Dev> online = new ArrayList<>();
        List<Dev> senders = new ArrayList<>();
        int stableOnline;
        long maxSeq;
        long[] sentAt = new long[1024];
        long[] lastPush = new long[1024];
        int[] pushN = new int[1024];

        G(int kind) {
            this.kind = kind;
        }

        void ensure(long seq) {
            if (seq >= sentAt.length) {
                int n = Math.max((int) seq + 1, sentAt.length * 2);
                sentAt = Arrays.copyOf(sentAt, n);
                lastPush = Arrays.copyOf(lastPush, n);
                pushN = Arrays.copyOf(pushN, n);
            }
            maxSeq = Math.max(maxSeq, seq);
        }
    }

    static final class User {
        int index;
        String uid;
        String token;
        Dev dev;
    }

    /** What one device holds of one group. */
    static final class DG {
        final G g;
        final BitSet held = new BitSet();
        final BitSet viaCatchup = new BitSet();
        boolean known; // its state answered: base and joined are set
        long base;
        long joined;
        long contiguous;
        long lastPushed;
        long ackedUpTo;
        /** The highest seq pushed and not acknowledged yet, while an acknowledgement waits ({@link #ackDelayNs}). */
        long ackDue;

        DG(G g) {
            this.g = g;
        }
    }

    static final class Dev implements LeanWebSockets.Listener {
        final int index;
        final User user;
        final String deviceId;
        final boolean toNode0;
        boolean stable = true;
        boolean churner;
        boolean lateJoiner;
        final List<DG> groups = new ArrayList<>();
        LeanWebSockets.Conn conn;
        int stage;
        boolean everLoggedIn;
        boolean dropping;
        Runnable onReady;
        int counter;
        long[] sentAt = new long[64];
        int[] sentGroup = new int[64];
        String failure;
        /** The direct phase's one-to-one conversation with {@link #peer}: its seqs are the pair's, both ways. */
        Dev peer;
        final BitSet directHeld = new BitSet();
        long directContiguous;
        long directAcked;
        long directAckDue;
        long directMax;

        Dev(int index, User user, boolean toNode0) {
            this.index = index;
            this.user = user;
            this.toNode0 = toNode0;
            this.deviceId = "gb-" + user.index; // the device the registration bound its token to
        }

        boolean online() {
            return stage == 2 && conn != null && !conn.closed;
        }

        DG dg(G g) {
            for (DG d : groups) {
                if (d.g == g) {
                    return d;
                }
            }
            return null;
        }

        void connect() {
            stage = 0;
            conn = toNode0 ? client.connect(this, node0) : client.connect(this);
        }

        @Override
        public void onOpen(LeanWebSockets.Conn c) {
            stage = 1;
            client.send(c, "{\"v\":1,\"type\":\"hello\",\"deviceId\":\"" + deviceId + "\",\"deviceType\":\"android\"}");
        }

        @Override
        public void onText(LeanWebSockets.Conn c, String f) {
            if (c != conn) {
                return;
            }
            String type = ChatStats.type(f);
            if (type == null) {
                ERRORS.add("untyped");
                return;
            }
            switch (type) {
                case "chatMsg" -> push(f);
                case "chatOpRet" -> opRet(f);
                case "hello" -> client.send(c, "{\"v\":1,\"type\":\"login\",\"token\":\"" + user.token + "\"}");
                case "login" -> loggedIn();
                case "heartbeat" -> { }
                case "chatReceipt" -> receipts++; // the one-to-one delivered receipts of the direct phase
                case "kick" -> KICKS.add(ChatStats.str(f, "reason"));
                case "error" -> {
                    ERRORS.add(ChatStats.str(f, "code"));
                    if (stage < 2) {
                        failure = f;
                    }
                }
                default -> ERRORS.add("frame:" + type);
            }
        }

        void loggedIn() {
            stage = 2;
            for (DG d : groups) {
                if (!everLoggedIn || !d.known) {
                    state(d);
                } else {
                    sync(d); // back after a logout: the catch-up from the highest seq held without a gap
                }
            }
            everLoggedIn = true;
            readyIfKnown();
        }

        void readyIfKnown() {
            for (DG d : groups) {
                if (!d.known) {
                    return;
                }
            }
            Runnable r = onReady;
            onReady = null;
            if (r != null) {
                r.run();
            }
        }

        void state(DG d) {
            client.send(conn, "{\"v\":1,\"type\":\"chatOp\",\"seq\":\"st\",\"op\":\"state\",\"group\":\"" + d.g.id + "\"}");
        }

        void sync(DG d) {
            catchupRequests++;
            client.send(conn, "{\"v\":1,\"type\":\"chatOp\",\"seq\":\"sy\",\"op\":\"sync\",\"group\":\"" + d.g.id + "\",\"after\":"
                    + d.contiguous + ",\"limit\":100}");
        }

        void page(DG d, long after) {
            catchupRequests++;
            client.send(conn, "{\"v\":1,\"type\":\"chatOp\",\"seq\":\"pg\",\"op\":\"messages\",\"group\":\"" + d.g.id + "\",\"after\":"
                    + after + ",\"limit\":100}");
        }

        void push(String f) {
            long now = System.nanoTime();
            pushes++;
            if (now >= phase.fromNs && now < phase.toNs) {
                phase.pushes++;
            }
            String groupId = ChatStats.str(f, "group");
            long seq = ChatStats.num(f, "seq", -1);
            if (groupId == null) {
                directPush(seq, now);
                return;
            }
            G g = groupsById.get(groupId);
            DG d = g == null ? null : dg(g);
            if (d == null || seq <= 0) {
                ERRORS.add(d == null ? "push-of-a-group-not-joined" : "push-without-seq");
                return;
            }
            if (d.known && seq <= d.joined) {
                beforeJoin++;
            }
            if (d.held.get((int) seq)) {
                if (f.contains("\"again\":true")) {
                    pushAgain++;
                } else if (d.viaCatchup.get((int) seq)) {
                    pushAfterCatchup++;
                } else {
                    pushDuplicates++;
                }
            } else {
                if (seq < d.lastPushed) {
                    pushOutOfOrder++;
                }
                d.lastPushed = Math.max(d.lastPushed, seq);
                hold(d, seq);
                if (stable) {
                    g.ensure(seq);
                    g.pushN[(int) seq]++;
                    g.lastPush[(int) seq] = Math.max(g.lastPush[(int) seq], now);
                }
            }
            if (seq > d.ackedUpTo && ackDelayNs == 0) {
                ack(d, seq);
            } else if (seq > Math.max(d.ackedUpTo, d.ackDue)) {
                // acknowledgements are cumulative: one for the highest seq held, at most every ack delay
                boolean scheduled = d.ackDue > 0;
                d.ackDue = seq;
                if (!scheduled) {
                    LeanWebSockets.Conn at = conn;
                    client.schedule(now + ackDelayNs, () -> {
                        if (conn == at && !at.closed && d.ackDue > d.ackedUpTo) {
                            ack(d, d.ackDue);
                        }
                        d.ackDue = 0;
                    });
                }
            }
        }

        void directPush(long seq, long now) {
            directPushes++;
            if (peer == null || seq <= 0) {
                ERRORS.add("direct-push-unexpected");
                return;
            }
            if (directHeld.get((int) seq)) {
                pushDuplicates++;
                return;
            }
            directHold(seq);
            // cumulative, at most every ack delay, like the group acknowledgements
            if (directAckDue == 0) {
                directAckDue = 1;
                LeanWebSockets.Conn at = conn;
                client.schedule(now + ackDelayNs, () -> {
                    directAckDue = 0;
                    if (conn == at && !at.closed && directContiguous > directAcked) {
                        directAcked = directContiguous;
                        acksSent++;
                        client.send(conn, "{\"v\":1,\"type\":\"chatAck\",\"peer\":\"" + peer.user.uid + "\",\"seq\":" + directContiguous + "}");
                    }
                });
            }
        }

        void directHold(long seq) {
            directHeld.set((int) seq);
            directMax = Math.max(directMax, seq);
            while (directHeld.get((int) directContiguous + 1)) {
                directContiguous++;
            }
        }

        void sendDirect() {
            int k = nextSend(-1);
            client.send(conn, "{\"v\":1,\"type\":\"chatOp\",\"seq\":\"s" + k + "\",\"op\":\"send\",\"peer\":\"" + peer.user.uid
                    + "\",\"sendId\":\"d" + index + "-" + k + "\",\"msgType\":\"text\",\"body\":{\"text\":\"bench message " + k
                    + " from device " + index + "\"}}");
        }

        void ack(DG d, long seq) {
            d.ackedUpTo = seq;
            acksSent++;
            client.send(conn, "{\"v\":1,\"type\":\"chatAck\",\"group\":\"" + d.g.id + "\",\"seq\":" + seq + "}");
        }

        void hold(DG d, long seq) {
            d.held.set((int) seq);
            if (d.known) {
                while (d.held.get((int) d.contiguous + 1)) {
                    d.contiguous++;
                }
            }
        }

        void opRet(String f) {
            String op = ChatStats.str(f, "op");
            boolean ok = "ok".equals(ChatStats.str(f, "result"));
            if ("send".equals(op)) {
                sendRet(f, ok);
                return;
            }
            G g = groupsById.get(ChatStats.str(f, "group"));
            DG d = g == null ? null : dg(g);
            if (!ok || d == null) {
                ERRORS.add(op + ":" + ChatStats.str(f, "code"));
                return;
            }
            JsonObject o = Json.createReader(new StringReader(f)).readObject();
            switch (op) {
                case "state" -> {
                    JsonObject s = o.getJsonObject("state");
                    d.joined = s.getJsonNumber("joinedSeq").longValue();
                    long last = s.getJsonNumber("lastSeq").longValue();
                    boolean late = lateJoiner && g == big;
                    // the horizon: a device at its first login holds the group's past (the groups' own
                    // join notices, before any bench message); a late joiner nothing before its join
                    d.base = late ? d.joined : Math.max(d.joined, last);
                    for (int s2 = d.held.nextSetBit(0); s2 >= 0 && s2 <= d.joined; s2 = d.held.nextSetBit(s2 + 1)) {
                        beforeJoin++;
                    }
                    d.contiguous = Math.max(d.contiguous, d.base);
                    d.known = true;
                    hold(d, d.contiguous); // advances over what was pushed before the answer
                    d.held.clear((int) d.base); // (the base itself was not pushed)
                    if (late) {
                        sync(d);
                    }
                    readyIfKnown();
                }
                case "sync", "messages" -> {
                    for (JsonValue v : o.getJsonArray("items")) {
                        long s = v.asJsonObject().getJsonNumber("seq").longValue();
                        if (s <= d.joined) {
                            beforeJoin++;
                        }
                        if (d.held.get((int) s) || s <= d.base) {
                            catchupOverlap++;
                        } else {
                            d.held.set((int) s);
                            d.viaCatchup.set((int) s);
                            catchupGot++;
                            hold(d, s);
                        }
                    }
                    if ("sync".equals(op) && o.containsKey("gap") && o.get("gap").getValueType() == JsonValue.ValueType.OBJECT) {
                        page(d, d.contiguous);
                    } else if ("messages".equals(op) && o.containsKey("next") && o.get("next").getValueType() != JsonValue.ValueType.NULL) {
                        page(d, d.contiguous);
                    }
                }
                default -> ERRORS.add("op:" + op);
            }
        }

        /** Counts a send to group {@code groupIndex} (-1: one-to-one) and gives its request counter. */
        int nextSend(int groupIndex) {
            int k = counter++;
            if (k == sentAt.length) {
                sentAt = Arrays.copyOf(sentAt, k * 2);
                sentGroup = Arrays.copyOf(sentGroup, k * 2);
            }
            long now = System.nanoTime();
            sentAt[k] = now;
            sentGroup[k] = groupIndex;
            inFlight++;
            sent++;
            if (now >= phase.fromNs && now < phase.toNs) {
                phase.sends++;
            }
            return k;
        }

        void send(G g) {
            int k = nextSend(g.index);
            client.send(conn, "{\"v\":1,\"type\":\"chatOp\",\"seq\":\"s" + k + "\",\"op\":\"send\",\"group\":\"" + g.id + "\",\"sendId\":\"d"
                    + index + "-" + k + "\",\"msgType\":\"text\",\"body\":{\"text\":\"bench message " + k + " from device " + index + "\"}}");
        }

        void sendRet(String f, boolean ok) {
            int k = Integer.parseInt(ChatStats.str(f, "seq").substring(1));
            inFlight--;
            long now = System.nanoTime();
            if (!ok) {
                FAILS.add(ChatStats.str(f, "code"));
            } else if (sentGroup[k] < 0) {
                answeredOk++;
                long seq = ChatStats.num(f, "msgSeq", -1);
                if (seq > 0 && !directHeld.get((int) seq)) {
                    directHold(seq); // the sending connection gets no push of its own message: the answer is its copy
                }
                countAnswer(k, now);
            } else {
                answeredOk++;
                G g = allGroups.get(sentGroup[k]);
                long seq = ChatStats.num(f, "msgSeq", -1);
                g.ensure(seq);
                g.sentAt[(int) seq] = sentAt[k];
                DG d = dg(g);
                if (!d.held.get((int) seq)) {
                    hold(d, seq); // the sending connection's copy is its answer
                }
                countAnswer(k, now);
            }
            if (phase.window > 0 && !closing && now < phase.toNs) {
                sendOne(phase.loopKind, now); // the closed loop: an answer lets the next send go
            }
        }

        void countAnswer(int k, long now) {
            if (sentAt[k] >= phase.fromNs && sentAt[k] < phase.toNs) {
                phase.answer.add(now - sentAt[k]);
            }
            if (now >= phase.fromNs && now < phase.toNs) {
                phase.answered++;
            }
        }

        @Override
        public void onClosed(LeanWebSockets.Conn c, int code) {
            if (c != conn) {
                return;
            }
            if (stage < 2 && failure == null) {
                failure = "closed " + code;
            }
            stage = 0;
            if (!dropping && !closing) {
                unexpectedCloses++;
                stable = false;
                dropping = true;
                client.schedule(System.nanoTime() + 1_000_000_000L, this::reconnect);
            }
        }

        void reconnect() {
            reconnects++;
            dropping = false;
            connect();
        }
    }

    static void sendOne(int kind, long now) {
        if (inFlight >= maxInFlight) {
            skipped++;
            return;
        }
        if (kind == DIRECT) {
            Dev d = directSenders.get(rnd.nextInt(directSenders.size()));
            if (d.online() && d.peer.online()) {
                d.sendDirect();
            } else {
                skipped++;
            }
            return;
        }
        G g = switch (kind) {
            case BIG -> big;
            case SMALL -> smalls.get(rnd.nextInt(smalls.size()));
            case CHANNEL -> channel;
            default -> probe;
        };
        Dev d = g.senders.get(rnd.nextInt(g.senders.size()));
        if (d.online()) {
            d.send(g);
        } else {
            skipped++;
        }
    }

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable e) {
            e.printStackTrace();
            System.exit(1);
        }
    }

    static int scaled(double n, double scale, int least) {
        return Math.max(least, (int) Math.round(n * scale));
    }

    static void run(String[] args) throws Exception {
        Map<String, String> o = BenchArgs.parse(args);
        url = o.getOrDefault("url", "http://127.0.0.1:8000");
        String node0Url = o.getOrDefault("node0-url", "http://127.0.0.1:8080");
        double scale = Double.parseDouble(o.getOrDefault("scale", "1"));
        int bigMembers = scaled(2000, scale, 20);
        int bigOnline = scaled(600, scale, 10);
        int nSmall = scaled(200, scale, 2);
        int smallSize = 20;
        int smallOnline = 10;
        // the channel can be scaled on its own: its members' registrations and joins are most of the setup
        double channelScale = Double.parseDouble(o.getOrDefault("channel-scale", String.valueOf(scale)));
        int channelMembers = scaled(100_000, channelScale, 100);
        int channelOnline = scaled(5000, channelScale, 20);
        int probeSize = 10;
        double rateBig = Double.parseDouble(o.getOrDefault("rate-big", "20"));
        double rateSmall = Double.parseDouble(o.getOrDefault("rate-small", "40"));
        double rateChannel = Double.parseDouble(o.getOrDefault("rate-channel", "1"));
        double rateProbe = Double.parseDouble(o.getOrDefault("rate-probe", "20"));
        int window = Integer.parseInt(o.getOrDefault("window", "32"));
        int warmup = Integer.parseInt(o.getOrDefault("warmup", "40"));
        int duration = Integer.parseInt(o.getOrDefault("duration", "30"));
        int shortPhase = Integer.parseInt(o.getOrDefault("short-phase", "20"));
        double churn = Double.parseDouble(o.getOrDefault("churn", "0.05"));
        int lateJoiners = Integer.parseInt(o.getOrDefault("late-joiners", String.valueOf(scaled(20, scale, 3))));
        int settle = Integer.parseInt(o.getOrDefault("settle", "45"));
        maxInFlight = Integer.parseInt(o.getOrDefault("max-in-flight", "2000"));
        ackDelayNs = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(Long.parseLong(o.getOrDefault("ack-delay-ms", "100")));
        long seed = o.containsKey("seed") ? Long.parseLong(o.get("seed")) : System.nanoTime() % 1_000_000_007L;
        String dbUrl = o.get("db-url");
        rnd = new Random(seed);
        URI n0 = URI.create(node0Url);
        node0 = new InetSocketAddress(n0.getHost(), n0.getPort());
        String run = Long.toHexString(System.nanoTime());
        // users: the channel's members are everyone; the big group's, the small groups' and the probe's
        // come first, then the channel-only ones
        int nUsers = Math.max(channelMembers, bigMembers + nSmall * smallSize + probeSize + channelOnline);
        System.out.printf("SIZES scale=%s users=%d big=%d/%d online small=%dx%d/%d online channel=%d/%d online probe=%d "
                        + "rates big=%s small=%s channel=%s probe=%s /s window=%d churn=%.2f late-joiners=%d seed=%d%n",
                scale, nUsers, bigMembers, bigOnline, nSmall, smallSize, smallOnline, channelMembers, channelOnline, probeSize,
                rateBig, rateSmall, rateChannel, rateProbe, window, churn, lateJoiners, seed);

        // 1. Users
        long t0 = System.nanoTime();
        users = new User[nUsers];
        ExecutorService pool = Executors.newFixedThreadPool(32);
        List<Future<?>> setup = new ArrayList<>();
        for (int i = 0; i < nUsers; i++) {
            int k = i;
            setup.add(pool.submit(() -> {
                User u = new User();
                u.index = k;
                JsonObject body = null;
                for (int attempt = 0; body == null; attempt++) { // a fresh name after a lost answer (its account may exist)
                    try {
                        body = json(post(url + "/api/v1/registrations", null, "{\"username\":\"gb" + run + "_" + k + (attempt == 0 ? "" : "r" + attempt)
                                + "\",\"deviceType\":\"android\",\"deviceId\":\"gb-" + k + "\"}", 201));
                    } catch (java.io.IOException e) {
                        if (attempt == 10) {
                            throw e;
                        }
                        Thread.sleep(200);
                    }
                }
                u.uid = body.getJsonObject("account").getString("id");
                u.token = body.getJsonObject("token").getString("token");
                users[k] = u;
                return null;
            }));
        }
        for (Future<?> f : setup) {
            f.get();
        }
        System.out.printf("setup: %d users registered in %.1f s%n", nUsers, (System.nanoTime() - t0) / 1e9);

        // 2. Groups over REST: the owner creates, the others join (open groups admit at once)
        t0 = System.nanoTime();
        int next = 0;
        big = new G(BIG);
        big.members = range(next, bigMembers);
        next += bigMembers;
        for (int i = 0; i < nSmall; i++) {
            G g = new G(SMALL);
            g.members = range(next, smallSize);
            next += smallSize;
            smalls.add(g);
        }
        probe = new G(PROBE);
        probe.members = range(next, probeSize);
        next += probeSize;
        int channelOnlyFrom = next;
        channel = new G(CHANNEL);
        channel.members = range(0, channelMembers);
        allGroups.add(big);
        allGroups.addAll(smalls);
        allGroups.add(channel);
        allGroups.add(probe);
        for (int i = 0; i < allGroups.size(); i++) {
            allGroups.get(i).index = i;
        }
        for (G g : allGroups) {
            User owner = users[g.members[0]];
            JsonObject created = json(post(url + "/api/v1/groups", "Bearer " + owner.token, "{\"name\":\"gb " + KINDS[g.kind] + " " + g.index
                    + "\",\"type\":\"" + (g.kind == CHANNEL ? "channel" : "chat") + "\",\"joinPolicy\":\"open\"}", 201));
            g.id = created.getString("id");
            groupsById.put(g.id, g);
        }
        for (G g : allGroups) {
            for (int i = 1; i < g.members.length; i++) {
                User u = users[g.members[i]];
                setup.add(pool.submit(() -> post(url + "/api/v1/groups/" + g.id + "/join", "Bearer " + u.token, "{}", 200)));
            }
        }
        for (Future<?> f : setup) {
            f.get();
        }
        System.out.printf("setup: %d groups created, %d joins in %.1f s%n", allGroups.size(),
                allGroups.stream().mapToInt(g -> g.members.length - 1).sum(), (System.nanoTime() - t0) / 1e9);

        // 3. Online devices: one per online user
        BitSet onlineUsers = new BitSet();
        for (int i = 0; i < bigOnline; i++) {
            onlineUsers.set(big.members[i]);
        }
        for (G g : smalls) {
            for (int i = 0; i < smallOnline; i++) {
                onlineUsers.set(g.members[i]);
            }
        }
        for (int m : probe.members) {
            onlineUsers.set(m);
        }
        for (int u = channelOnlyFrom; onlineUsers.cardinality() < channelOnline + probeSize && u < nUsers; u++) {
            onlineUsers.set(u);
        }
        Map<Integer, List<G>> groupsOfUser = new HashMap<>();
        for (G g : allGroups) {
            for (int m : g.members) {
                if (onlineUsers.get(m)) {
                    groupsOfUser.computeIfAbsent(m, x -> new ArrayList<>()).add(g);
                }
            }
        }
        boolean[] isProbe = new boolean[nUsers];
        for (int m : probe.members) {
            isProbe[m] = true;
        }
        for (int u = onlineUsers.nextSetBit(0); u >= 0; u = onlineUsers.nextSetBit(u + 1)) {
            Dev d = new Dev(devs.size(), users[u], isProbe[u]);
            users[u].dev = d;
            devs.add(d);
            for (G g : groupsOfUser.get(u)) {
                d.groups.add(new DG(g));
                g.online.add(d);
            }
        }
        // churners (log out and back in mid-run) and late joiners of the big group: among the
        // non-owner, non-probe devices; left out of the timing (not of the check)
        List<Dev> candidates = new ArrayList<>();
        for (Dev d : devs) {
            if (!d.toNode0 && d.user.index != 0 && !isOwner(d)) {
                candidates.add(d);
            }
        }
        java.util.Collections.shuffle(candidates, rnd);
        int nChurn = (int) Math.round(devs.size() * churn);
        for (Dev d : candidates.subList(0, Math.min(nChurn, candidates.size()))) {
            d.churner = true;
            d.stable = false;
        }
        List<Dev> late = new ArrayList<>();
        for (Dev d : candidates) {
            if (late.size() < lateJoiners && !d.churner && d.dg(big) == null && d.user.index >= channelOnlyFrom) {
                d.lateJoiner = true;
                d.stable = false;
                late.add(d);
            }
        }
        for (G g : allGroups) {
            for (Dev d : g.online) {
                if (d.stable) {
                    g.stableOnline++;
                    if (g.kind != CHANNEL || d.user.index == g.members[0]) {
                        g.senders.add(d); // a channel: only its owner sends
                    }
                }
            }
        }
        // the direct phase's pairs: stable devices of the big group, two by two
        List<Dev> pairable = big.senders.stream().filter(d -> !d.toNode0).toList();
        for (int i = 0; i + 1 < pairable.size(); i += 2) {
            Dev a = pairable.get(i);
            Dev b = pairable.get(i + 1);
            a.peer = b;
            b.peer = a;
            directSenders.add(a);
            directSenders.add(b);
        }
        System.out.printf("devices: %d online (%d to node 0 straight: the probe group), %d churners, %d late joiners; "
                        + "stable online: big %d, small %d each (about), channel %d, probe %d%n",
                devs.size(), probe.online.size(), nChurn, late.size(), big.stableOnline, smalls.get(0).stableOnline, channel.stableOnline,
                probe.stableOnline);

        // 4. Log in, 100 at a time
        URI ws = URI.create(url.replaceFirst("^http", "ws") + "/ws");
        client = new LeanWebSockets(ws.getHost(), ws.getPort(), ws.getPath());
        phase = new Phase("setup", 0, new double[4], 0);
        t0 = System.nanoTime();
        AtomicInteger nextLogin = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        CompletableFuture<Void> allIn = new CompletableFuture<>();
        Runnable[] open = new Runnable[1];
        open[0] = () -> {
            int k = nextLogin.getAndIncrement();
            if (k >= devs.size()) {
                return;
            }
            Dev d = devs.get(k);
            d.onReady = () -> {
                if (done.incrementAndGet() == devs.size()) {
                    allIn.complete(null);
                }
                open[0].run();
            };
            d.connect();
        };
        for (int i = 0; i < Math.min(100, devs.size()); i++) {
            client.execute(open[0]);
        }
        try {
            allIn.get(20, TimeUnit.MINUTES);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("logins: " + done.get() + " of " + devs.size() + "; first failure "
                    + devs.stream().filter(d -> d.failure != null).map(d -> d.failure).findFirst().orElse("none"));
        }
        for (Dev d : devs) {
            client.execute(() -> heartbeat(d));
        }
        System.out.printf("logged in: %d devices in %.1f s%n", devs.size(), (System.nanoTime() - t0) / 1e9);
        if (dbUrl != null) {
            System.out.println("group_chat_node of the probe group (node ids holding its members): " + probeNodes(dbUrl));
        }

        // 5. Phases
        double[] mixedRates = {rateBig, rateSmall, rateChannel, 0};
        List<Phase> phases = List.of(
                new Phase("warmup", warmup, mixedRates, 0),
                new Phase("mixed", duration, mixedRates, 0),
                new Phase("big", shortPhase, new double[] {rateBig, 0, 0, 0}, 0),
                new Phase("idle", shortPhase, new double[4], 0),
                new Phase("probe", shortPhase, new double[] {0, 0, 0, rateProbe}, 0),
                new Phase("saturation", shortPhase, new double[4], window),
                // one-to-one messages between pairs of the same devices, the same closed loop: Roost's own
                // CPU per one-to-one message, measured in the same run as the group's CPU per push
                new Phase("direct", shortPhase, new double[4], window, DIRECT));
        Runnable[] pace = new Runnable[1];
        pace[0] = () -> {
            long now = System.nanoTime();
            Phase p = phase;
            if (closing) {
                return;
            }
            if (now < p.toNs) {
                for (int kind = 0; kind < 4; kind++) {
                    if (p.rates[kind] <= 0) {
                        continue;
                    }
                    long target = (long) ((now - p.fromNs) * p.rates[kind] / 1e9);
                    while (p.due[kind] < target) {
                        p.due[kind]++;
                        sendOne(kind, now);
                    }
                }
            }
            client.schedule(now + 1_000_000L, pace[0]);
        };
        client.execute(pace[0]);
        for (Phase p : phases) {
            Map<String, long[]> rows = dbUrl == null ? null : tableRows(dbUrl);
            onClient(() -> {
                p.fromNs = System.nanoTime();
                p.toNs = p.fromNs + p.seconds * 1_000_000_000L;
                p.fromMs = System.currentTimeMillis();
                p.rowsFrom = rows;
                phase = p;
                System.out.println("PHASE_START " + p.name + " " + p.fromMs);
                if (p.window > 0) {
                    long now = System.nanoTime();
                    for (int i = 0; i < p.window; i++) {
                        sendOne(p.loopKind, now);
                    }
                }
                if (p.name.equals("mixed")) {
                    client.schedule(p.fromNs + p.seconds * 1_000_000_000L / 3, () -> {
                        for (Dev d : devs) {
                            if (d.churner && d.online()) {
                                d.dropping = true;
                                client.close(d.conn); // logs out
                                client.schedule(System.nanoTime() + 2_000_000_000L + (long) (rnd.nextDouble() * 3e9), d::reconnect);
                            }
                        }
                        System.out.println("churn: " + nChurn + " devices logged out, back in 2-5 s");
                    });
                    client.schedule(p.fromNs + p.seconds * 1_000_000_000L / 2, () -> {
                        for (Dev d : late) {
                            DG dg = new DG(big);
                            d.groups.add(dg);
                            pool.submit(() -> {
                                post(url + "/api/v1/groups/" + big.id + "/join", "Bearer " + d.user.token, "{}", 200);
                                client.execute(() -> d.state(dg));
                                return null;
                            });
                        }
                        System.out.println("late joins: " + late.size() + " devices join the big group");
                    });
                }
                return 0L;
            });
            Thread.sleep(p.seconds * 1000L);
            Thread.sleep(Math.max(0, (p.toNs - System.nanoTime()) / 1_000_000));
            onClient(() -> {
                p.toMs = System.currentTimeMillis();
                System.out.println("PHASE_END " + p.name + " " + p.toMs);
                return 0L;
            });
            if (dbUrl != null) {
                p.rowsTo = tableRows(dbUrl);
            }
            Thread.sleep(p.window > 0 ? 3000 : 500); // what is in flight lands before the next phase
        }
        onClient(() -> {
            phase = new Phase("settle", 0, new double[4], 0);
            return 0L;
        });

        // 6. Settle: every send answered, every device holds every seq of its groups
        long until = System.nanoTime() + 120_000_000_000L;
        while (onClient(() -> (long) inFlight) > 0 && System.nanoTime() < until) {
            Thread.sleep(200);
        }
        Map<G, Long> lastSeqs = dbUrl == null ? null : lastSeqs(dbUrl);
        until = System.nanoTime() + settle * 1_000_000_000L;
        while (onClient(() -> missing(lastSeqs)) > 0 && System.nanoTime() < until) {
            Thread.sleep(500);
        }
        long lost = onClient(() -> missing(lastSeqs));
        long devicesShort = onClient(() -> devs.stream().filter(d -> missingOf(d, lastSeqs) > 0).count());

        // 7. Report
        for (Phase p : phases.subList(1, phases.size())) {
            double secs = p.seconds;
            StringBuilder line = new StringBuilder();
            line.append(String.format("PHASE name=%s from=%d to=%d secs=%.0f sends_per_s=%.1f answered_per_s=%.1f pushes_per_s=%.0f "
                            + "answer_p50_ms=%.1f answer_p99_ms=%.1f",
                    p.name, p.fromMs, p.toMs, secs, p.sends / secs, p.answered / secs, p.pushes / secs, p.answer.ms(0.5), p.answer.ms(0.99)));
            ChatStats.Latencies all = new ChatStats.Latencies();
            for (int kind = 0; kind < 4; kind++) {
                ChatStats.Latencies lat = new ChatStats.Latencies();
                long incomplete = 0;
                for (G g : allGroups) {
                    if (g.kind != kind) {
                        continue;
                    }
                    for (int s = 1; s <= g.maxSeq && s < g.sentAt.length; s++) {
                        long at = g.sentAt[s];
                        if (at == 0 || at < p.fromNs || at >= p.toNs) {
                            continue;
                        }
                        if (g.pushN[s] >= g.stableOnline - 1 && g.stableOnline > 1) {
                            lat.add(g.lastPush[s] - at);
                            all.add(g.lastPush[s] - at);
                        } else {
                            incomplete++;
                        }
                    }
                }
                if (lat.n > 0 || incomplete > 0) {
                    line.append(String.format(" last_%s_n=%d last_%s_p50_ms=%.1f last_%s_p99_ms=%.1f incomplete_%s=%d", KINDS[kind], lat.n,
                            KINDS[kind], lat.ms(0.5), KINDS[kind], lat.ms(0.99), KINDS[kind], incomplete));
                }
            }
            line.append(String.format(" last_p50_ms=%.1f last_p99_ms=%.1f", all.ms(0.5), all.ms(0.99)));
            System.out.println(line);
            if (p.rowsFrom != null && p.rowsTo != null && p.answered > 0) {
                StringBuilder rows = new StringBuilder("ROWS name=" + p.name + " messages=" + p.answered);
                for (Map.Entry<String, long[]> e : p.rowsTo.entrySet()) {
                    long[] a = p.rowsFrom.getOrDefault(e.getKey(), new long[3]);
                    long ins = e.getValue()[0] - a[0];
                    long upd = e.getValue()[1] - a[1];
                    long hot = e.getValue()[2] - a[2];
                    if (ins != 0 || upd != 0) {
                        rows.append(String.format(" %s=+%.2f/~%.2f(hot %.2f)", e.getKey(), (double) ins / p.answered,
                                (double) upd / p.answered, (double) hot / p.answered));
                    }
                }
                System.out.println(rows);
            }
        }
        boolean dbOk = dbUrl == null || checkDatabase(dbUrl);
        System.out.printf("whole run: %d sent, %d answered ok, failures %s, skipped %d; pushes %d (duplicates %d, out of seq order %d, "
                        + "again %d, after catch-up %d), acks %d; catch-up requests %d: %d got, %d already held; before the join %d; "
                        + "one-to-one pushes %d, receipts %d; reconnects %d, unexpected closes %d, kicks %s, errors %s%n",
                sent, answeredOk, FAILS, skipped, pushes, pushDuplicates, pushOutOfOrder, pushAgain, pushAfterCatchup, acksSent,
                catchupRequests, catchupGot, catchupOverlap, beforeJoin, directPushes, receipts, reconnects, unexpectedCloses, KICKS, ERRORS);
        long churnersCaughtUp = devs.stream().filter(d -> (d.churner || d.lateJoiner) && missingOf(d, lastSeqs) == 0).count();
        System.out.printf("client outcome: %d messages missing on %d devices; churners and late joiners complete: %d of %d%n", lost,
                devicesShort, churnersCaughtUp, devs.stream().filter(d -> d.churner || d.lateJoiner).count());
        boolean ok = dbOk && lost == 0 && pushDuplicates == 0 && pushOutOfOrder == 0 && beforeJoin == 0 && FAILS.total() == 0
                && sent == answeredOk;
        System.out.printf("RESULT devices=%d lost=%d dup=%d out_of_order=%d before_join=%d db_ok=%s outcome=%s%n", devs.size(), lost,
                pushDuplicates, pushOutOfOrder, beforeJoin, dbOk, ok ? "PASS" : "FAIL");
        System.out.flush();
        closing = true;
        onClient(() -> {
            for (Dev d : devs) {
                if (d.conn != null) {
                    client.close(d.conn);
                }
            }
            return 0L;
        });
        Thread.sleep(500);
        client.close();
        pool.shutdownNow();
        System.exit(0);
    }

    static boolean isOwner(Dev d) {
        for (G g : allGroups) {
            if (g.members[0] == d.user.index) {
                return true;
            }
        }
        return false;
    }

    static void heartbeat(Dev d) {
        if (d.online()) {
            client.send(d.conn, "{\"v\":1,\"type\":\"heartbeat\"}");
        }
        if (!closing) {
            client.schedule(System.nanoTime() + 20_000_000_000L + (long) (Math.random() * 5e9), () -> heartbeat(d));
        }
    }

    static int[] range(int from, int n) {
        int[] r = new int[n];
        for (int i = 0; i < n; i++) {
            r[i] = from + i;
        }
        return r;
    }

    static long missingOf(Dev d, Map<G, Long> lastSeqs) {
        long m = 0;
        if (d.peer != null) { // the pair's conversation: every seq either of them was answered or pushed
            long last = Math.max(d.directMax, d.peer.directMax);
            m += last - d.directHeld.get(1, (int) last + 1).cardinality();
        }
        for (DG dg : d.groups) {
            long last = lastSeqs != null && lastSeqs.containsKey(dg.g) ? lastSeqs.get(dg.g) : dg.g.maxSeq;
            if (!dg.known) {
                m += Math.max(1, last);
                continue;
            }
            if (last > dg.base) {
                m += (last - dg.base) - dg.held.get((int) dg.base + 1, (int) last + 1).cardinality();
            }
        }
        return m;
    }

    static long missing(Map<G, Long> lastSeqs) {
        long m = 0;
        for (Dev d : devs) {
            m += missingOf(d, lastSeqs);
        }
        return m;
    }

    /** Rows inserted, updated and HOT-updated per table (partitions under their table's name). */
    static Map<String, long[]> tableRows(String dbUrl) {
        Map<String, long[]> m = new TreeMap<>();
        try (Connection c = DriverManager.getConnection(dbUrl, "roost", "roost"); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT regexp_replace(relname, '_p[0-9]+$', ''), sum(n_tup_ins), sum(n_tup_upd), sum(n_tup_hot_upd) "
                     + "FROM pg_stat_user_tables GROUP BY 1")) {
            while (r.next()) {
                m.put(r.getString(1), new long[] {r.getLong(2), r.getLong(3), r.getLong(4)});
            }
        } catch (Exception e) {
            System.out.println("pg_stat_user_tables: " + e);
        }
        return m;
    }

    static String probeNodes(String dbUrl) {
        try (Connection c = DriverManager.getConnection(dbUrl, "roost", "roost"); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT string_agg(node_id::text, ',') FROM group_chat_node WHERE group_id = " + probe.id)) {
            return r.next() ? r.getString(1) : "?";
        } catch (Exception e) {
            return "not read: " + e.getMessage();
        }
    }

    static Map<G, Long> lastSeqs(String dbUrl) {
        Map<G, Long> m = new HashMap<>();
        try (Connection c = DriverManager.getConnection(dbUrl, "roost", "roost"); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT group_id, last_seq FROM group_chat")) {
            while (r.next()) {
                G g = groupsById.get(Long.toString(r.getLong(1)));
                if (g != null) {
                    m.put(g, r.getLong(2));
                }
            }
        } catch (Exception e) {
            System.out.println("group_chat: " + e);
            return null;
        }
        return m;
    }

    /** Every group's messages are gap-free 1..last_seq in PostgreSQL, one row each. */
    static boolean checkDatabase(String dbUrl) {
        try (Connection c = DriverManager.getConnection(dbUrl, "roost", "roost"); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT c.group_id, c.last_seq, count(m.seq), coalesce(min(m.seq), 0), coalesce(max(m.seq), 0) "
                     + "FROM group_chat c LEFT JOIN group_message m ON m.group_id = c.group_id GROUP BY c.group_id, c.last_seq")) {
            int bad = 0;
            int n = 0;
            while (r.next()) {
                if (!groupsById.containsKey(Long.toString(r.getLong(1)))) {
                    continue;
                }
                n++;
                long last = r.getLong(2);
                if (r.getLong(3) != last || (last > 0 && (r.getLong(4) != 1 || r.getLong(5) != last))) {
                    bad++;
                }
            }
            System.out.printf("db check: %d groups, %d not gap-free 1..last_seq%n", n, bad);
            return bad == 0 && n == allGroups.size();
        } catch (Exception e) {
            System.out.println("db check: " + e);
            return false;
        }
    }

    static <T> T onClient(Supplier<T> s) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        client.execute(() -> f.complete(s.get()));
        return f.get(60, TimeUnit.SECONDS);
    }

    static JsonObject json(String s) {
        return Json.createReader(new StringReader(s)).readObject();
    }

    static String post(String u, String auth, String body, int expect) throws Exception {
        for (int attempt = 0; ; attempt++) {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(u)).timeout(Duration.ofSeconds(60))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
            if (auth != null) {
                b.header("Authorization", auth);
            }
            HttpResponse<String> r;
            try {
                r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
            } catch (java.io.IOException e) { // a kept-alive connection the load balancer closed
                if (attempt < 10 && !u.endsWith("/registrations")) {
                    Thread.sleep(100);
                    continue;
                }
                throw e;
            }
            if (r.statusCode() == expect) {
                return r.body();
            }
            if ((r.statusCode() == 503 || r.statusCode() == 409 || r.statusCode() == 429) && attempt < 20) {
                Thread.sleep(200L * (attempt + 1));
                continue;
            }
            throw new IllegalStateException(u + " -> " + r.statusCode() + " " + r.body());
        }
    }
}
