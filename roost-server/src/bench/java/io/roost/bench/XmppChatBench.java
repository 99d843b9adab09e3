package io.roost.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * The chat workload of {@link ChatBench} against an XMPP server (ejabberd), for a side-by-side figure:
 * users registered in-band (XEP-0077), in pairs, some with a second resource; each device logs in
 * (stream, SASL PLAIN, bind, XEP-0198 stream management, carbons, presence). Every pair chats at the
 * paced aggregate rate: {@code <message type='chat'>} to the peer's bare JID followed by {@code <r/>};
 * a send counts when the server's {@code <a h>} covers it (the server processed the stanza: with
 * mod_mam the sender's archive write is done). Push is the message's arrival at a device of the
 * recipient. Every device acknowledges every stanza it receives ({@code <a h>}, unasked, like
 * chatAck), and each user's first device sends a chat marker ({@code displayed}, XEP-0333) for the last
 * message it got every read interval. Checks that every device of the recipient got every answered
 * message exactly once (directly or as a carbon copy). One selector thread drives every connection.
 * Same script protocol as ChatBench (WARMED, go-file, MEASURE_START/END, SETTLED, RESULT).
 */
public final class XmppChatBench {

    static final String HOST = "localhost";

    static Selector selector;
    static InetSocketAddress address;
    static final ConcurrentLinkedQueue<Runnable> TASKS = new ConcurrentLinkedQueue<>();
    static final PriorityQueue<long[]> TIMER_AT = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
    static final Map<Long, Runnable> TIMER_TASK = new HashMap<>();
    static long timerSeq;

    static long measureFrom = Long.MAX_VALUE;
    static long measureTo = Long.MAX_VALUE;
    static int inFlight;
    static long sent;
    static long sentMeasured;
    static long answeredMeasured;
    static long answered;
    static final ChatStats.Skips SKIPPED = new ChatStats.Skips();
    static long acksSent;
    static long markersSent;
    static long markersGot;
    static long directGot;
    static long carbonsReceived;
    static long carbonsSent;
    static long duplicates;
    static long unexpectedCloses;
    static final ChatStats.Counts ERRORS = new ChatStats.Counts();
    static final ChatStats.Latencies ANSWER = new ChatStats.Latencies();
    static final ChatStats.Latencies PUSH = new ChatStats.Latencies();
    static XDev[] devs;
    static XUser[] users;

    static final class XUser {
        String name;
        XUser peer;
        XDev[] devices;
        /** Answered messages sent to this user. */
        long received;
    }

    /** One connection: a device, or a registration. */
    static final class XConn {
        SocketChannel ch;
        ByteBuffer in = ByteBuffer.allocate(8192);
        ByteBuffer out;
        final StringBuilder text = new StringBuilder();
        int scan;
        int depth;
        int elemStart = -1;
        boolean closed;
        /** The stream restarted (SASL success): the buffer was reset. */
        boolean reset;
        String last;
        XDev dev;
        String register; // a registration connection: the user's name
        Runnable done;
    }

    static final class XDev {
        final int index;
        final XUser user;
        final String resource;
        XConn conn;
        int stage; // 0 stream, 1 authed, 2 bound, 3 ready
        Runnable onReady;
        long outStanzas;
        long inStanzas;
        long ackedIn;
        final ArrayDeque<long[]> pending = new ArrayDeque<>(); // {stanza number, counter}
        int counter;
        long[] sentAt = new long[64];
        final Map<Integer, BitSet> got = new HashMap<>();
        long gotCount;
        String lastId;
        String markedId;
        boolean closing;

        XDev(int index, XUser user, String resource) {
            this.index = index;
            this.user = user;
            this.resource = resource;
        }
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
        int port = Integer.parseInt(o.getOrDefault("port", "5222"));
        int nUsers = Integer.parseInt(o.getOrDefault("users", "10000")) / 2 * 2;
        double second = Double.parseDouble(o.getOrDefault("second-device", "0.1"));
        int rate = Integer.parseInt(o.getOrDefault("rate", "5000"));
        int duration = Integer.parseInt(o.getOrDefault("duration", "60"));
        int warmup = Integer.parseInt(o.getOrDefault("warmup", "30"));
        long readNs = Long.parseLong(o.getOrDefault("read-interval", "10")) * 1_000_000_000L;
        int maxInFlight = Integer.parseInt(o.getOrDefault("max-in-flight", "20000"));
        int settle = Integer.parseInt(o.getOrDefault("settle", "45"));
        int inFlightLogins = Integer.parseInt(o.getOrDefault("in-flight", "200"));
        long seed = o.containsKey("seed") ? Long.parseLong(o.get("seed")) : System.nanoTime() % 1_000_000_007L;
        Path goFile = o.containsKey("go-file") ? Path.of(o.get("go-file")) : null;
        Random rnd = new Random(seed);
        String run = Long.toHexString(System.nanoTime());
        System.out.printf("xmpp port=%d users=%d second-device=%.2f rate=%d/s duration=%ds warmup=%ds read-interval=%ds seed=%d run=%s%n",
                port, nUsers, second, rate, duration, warmup, readNs / 1_000_000_000L, seed, run);
        if (o.containsKey("drop") && Double.parseDouble(o.get("drop")) > 0) {
            System.out.println("(--drop is not run against XMPP: it would need stream resumption; ignored)");
        }
        selector = Selector.open();
        address = new InetSocketAddress("127.0.0.1", port);
        Thread loop = new Thread(XmppChatBench::loop, "xmpp-client");
        loop.setDaemon(true);
        loop.start();

        // 1. Users: in-band registration, 100 at a time.
        users = new XUser[nUsers];
        List<XDev> all = new ArrayList<>();
        for (int i = 0; i < nUsers; i++) {
            XUser u = new XUser();
            u.name = "xb" + run + "u" + i;
            users[i] = u;
            XDev d = new XDev(all.size(), u, "r0");
            all.add(d);
            u.devices = new XDev[] {d};
        }
        for (XUser u : users) {
            if (rnd.nextDouble() < second) {
                XDev d = new XDev(all.size(), u, "r1");
                all.add(d);
                u.devices = new XDev[] {u.devices[0], d};
            }
        }
        devs = all.toArray(new XDev[0]);
        List<XUser> order = new ArrayList<>(Arrays.asList(users));
        java.util.Collections.shuffle(order, rnd);
        for (int i = 0; i < nUsers; i += 2) {
            order.get(i).peer = order.get(i + 1);
            order.get(i + 1).peer = order.get(i);
        }
        long t0 = System.nanoTime();
        inTurn(nUsers, 100, (k, next) -> {
            XConn c = open();
            c.register = users[k].name;
            c.done = next;
            return c;
        });
        System.out.printf("registered %d users in %.1f s (errors %s)%n", nUsers, (System.nanoTime() - t0) / 1e9, ERRORS);

        // 2. Devices log in.
        t0 = System.nanoTime();
        long[] failed = {0};
        inTurn(devs.length, inFlightLogins, (k, next) -> {
            XDev d = devs[k];
            d.onReady = next;
            d.conn = open();
            d.conn.dev = d;
            d.conn.done = () -> {
                failed[0]++;
                next.run();
            };
            if (d == d.user.devices[0]) {
                schedule(System.nanoTime() + (long) (Math.random() * readNs), new Runnable() {
                    @Override
                    public void run() {
                        if (d.stage == 3 && d.lastId != null && !d.lastId.equals(d.markedId)) {
                            d.markedId = d.lastId;
                            markersSent++;
                            d.outStanzas++;
                            write(d.conn, "<message to='" + d.user.peer.name + "@" + HOST + "' type='chat' id='mk" + d.index + "-" + markersSent
                                    + "'><displayed xmlns='urn:xmpp:chat-markers:0' id='" + d.lastId + "'/></message>");
                        }
                        schedule(System.nanoTime() + readNs, this);
                    }
                });
            }
            return d.conn;
        });
        System.out.printf("logged in: %d devices in %.1f s (%d failed; errors %s)%n", devs.length - failed[0], (System.nanoTime() - t0) / 1e9,
                failed[0], ERRORS);
        if (failed[0] > 0) {
            throw new IllegalStateException("logins failed");
        }

        // 3. Chat at the paced rate.
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
                XUser u = users[rnd.nextInt(users.length)];
                send(u.devices[rnd.nextInt(u.devices.length)], now);
            }
            schedule(now + 1_000_000L, pace[0]);
        };
        execute(pace[0]);
        Thread.sleep(warmup * 1000L);
        System.out.println(onLoop(() -> "WARMED sent=" + sent + " answered=" + answered + " inflight=" + inFlight));
        System.out.flush();
        if (goFile != null) {
            while (!Files.exists(goFile)) {
                Thread.sleep(100);
            }
        }
        onLoop(() -> {
            measureFrom = System.nanoTime();
            measureTo = measureFrom + duration * 1_000_000_000L;
            System.out.println("MEASURE_START " + System.currentTimeMillis());
            return 0;
        });
        Thread.sleep(duration * 1000L);
        Thread.sleep(Math.max(0, (measureTo - System.nanoTime()) / 1_000_000));
        onLoop(() -> {
            stop[0] = true;
            System.out.println("MEASURE_END " + System.currentTimeMillis());
            return 0;
        });
        System.out.flush();
        long until = System.nanoTime() + 120_000_000_000L;
        while (onLoop(() -> inFlight) > 0 && System.nanoTime() < until) {
            Thread.sleep(200);
        }
        until = System.nanoTime() + settle * 1_000_000_000L;
        while (onLoop(XmppChatBench::missing) > 0 && System.nanoTime() < until) {
            Thread.sleep(500);
        }
        System.out.println(onLoop(() -> "SETTLED sent=" + sent + " answered=" + answered + " inflight=" + inFlight));
        System.out.flush();
        if (goFile != null) {
            Path heap = Path.of(goFile + ".heap");
            while (!Files.exists(heap)) {
                Thread.sleep(100);
            }
        }
        double seconds = duration;
        long lost = onLoop(XmppChatBench::missing);
        System.out.printf("sends: %d in the measured %d s (offered %.0f/s), %d answered (<a h>) in it = %.0f sends/s; %s%n",
                sentMeasured, duration, sentMeasured / seconds, answeredMeasured, answeredMeasured / seconds, SKIPPED.text(maxInFlight));
        System.out.printf("send→answer p50 %.1f ms, p99 %.1f ms (n=%d); send→push p50 %.1f ms, p99 %.1f ms (n=%d, recipient devices)%n",
                ANSWER.ms(0.5), ANSWER.ms(0.99), ANSWER.n, PUSH.ms(0.5), PUSH.ms(0.99), PUSH.n);
        System.out.printf("whole run: %d sent, %d answered, %d still in flight; direct deliveries %d, carbons received %d / sent %d, "
                        + "duplicates %d, acks sent %d, markers sent %d / got %d; unexpected closes %d; errors %s%n",
                sent, answered, inFlight, directGot, carbonsReceived, carbonsSent, duplicates, acksSent, markersSent, markersGot,
                unexpectedCloses, ERRORS);
        boolean ok = lost == 0 && duplicates == 0 && inFlight == 0 && unexpectedCloses == 0;
        System.out.printf("client outcome: %d deliveries missing, %d duplicated%n", lost, duplicates);
        System.out.printf("RESULT sends_per_s=%.0f offered_per_s=%.0f answer_p50_ms=%.1f answer_p99_ms=%.1f push_p50_ms=%.1f push_p99_ms=%.1f "
                        + "devices=%d pairs=%d lost=%d dup=%d outcome=%s%n",
                answeredMeasured / seconds, sentMeasured / seconds, ANSWER.ms(0.5), ANSWER.ms(0.99), PUSH.ms(0.5), PUSH.ms(0.99),
                devs.length, nUsers / 2, lost, duplicates, ok ? "PASS" : "FAIL");
        System.out.flush();
        onLoop(() -> {
            for (XDev d : devs) {
                d.closing = true;
                if (d.conn != null && !d.conn.closed) {
                    write(d.conn, "</stream:stream>");
                }
            }
            return 0;
        });
        Thread.sleep(1000); // the stream closes queued above reach the server before the JVM ends
        System.exit(0);
    }

    /** Deliveries of answered messages that devices of the recipient have not got. */
    static long missing() {
        long m = 0;
        for (XDev d : devs) {
            m += Math.max(0, d.user.received - d.gotCount);
        }
        return m;
    }

    interface Opener {
        XConn open(int k, Runnable next);
    }

    /** Opens {@code n} connections, {@code inFlight} at a time; each calls {@code next} when it is done. */
    static void inTurn(int n, int inFlight, Opener opener) throws Exception {
        CompletableFuture<Void> all = new CompletableFuture<>();
        int[] next = {0};
        int[] done = {0};
        Runnable[] step = new Runnable[1];
        step[0] = () -> {
            int k = next[0]++;
            if (k >= n) {
                return;
            }
            boolean[] once = {false};
            opener.open(k, () -> {
                if (!once[0]) {
                    once[0] = true;
                    if (++done[0] == n) {
                        all.complete(null);
                    }
                    step[0].run();
                }
            });
        };
        execute(() -> {
            for (int i = 0; i < Math.min(inFlight, n); i++) {
                step[0].run();
            }
        });
        all.get(30, TimeUnit.MINUTES);
    }

    static void send(XDev d, long now) {
        if (d.stage != 3) {
            return;
        }
        int k = d.counter++;
        if (k == d.sentAt.length) {
            d.sentAt = Arrays.copyOf(d.sentAt, k * 2);
        }
        d.sentAt[k] = now;
        d.outStanzas++;
        d.pending.add(new long[] {d.outStanzas, k});
        inFlight++;
        sent++;
        if (now >= measureFrom && now < measureTo) {
            sentMeasured++;
        }
        write(d.conn, "<message to='" + d.user.peer.name + "@" + HOST + "' type='chat' id='d" + d.index + "-" + k + "'><body>message " + k
                + " from device " + d.index + "</body></message><r xmlns='urn:xmpp:sm:3'/>");
    }

    static final String STREAM = "<?xml version='1.0'?><stream:stream to='" + HOST
            + "' xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' version='1.0'>";

    /** One top-level element (or a stream header) of a connection. */
    static void element(XConn c, String e) {
        c.last = e;
        XDev d = c.dev;
        if (e.startsWith("<stream:stream")) {
            return;
        }
        if (e.startsWith("<stream:features")) {
            if (c.register != null) {
                write(c, "<iq type='set' id='reg'><query xmlns='jabber:iq:register'><username>" + c.register
                        + "</username><password>pw</password></query></iq>");
            } else if (d.stage == 0) {
                String plain = Base64.getEncoder().encodeToString(("\0" + d.user.name + "\0pw").getBytes(StandardCharsets.UTF_8));
                write(c, "<auth xmlns='urn:ietf:params:xml:ns:xmpp-sasl' mechanism='PLAIN'>" + plain + "</auth>");
            } else if (d.stage == 1) {
                write(c, "<iq type='set' id='bind'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><resource>" + d.resource
                        + "</resource></bind></iq>");
            }
            return;
        }
        if (c.register != null) {
            if (e.startsWith("<iq") && e.contains("id='reg'")) {
                if (!e.contains("type='result'") && !e.contains("conflict")) {
                    ERRORS.add("register: " + e.substring(0, Math.min(200, e.length())));
                }
                Runnable r = c.done;
                c.done = null;
                write(c, "</stream:stream>");
                closeConn(c);
                r.run();
            }
            return;
        }
        if (e.startsWith("<success")) {
            d.stage = 1;
            c.reset = true;
            c.text.setLength(0);
            c.scan = 0;
            c.depth = 0;
            c.elemStart = -1;
            write(c, STREAM);
            return;
        }
        if (e.startsWith("<failure")) {
            ERRORS.add("sasl-failure");
            closeConn(c);
            return;
        }
        if (e.startsWith("<iq") && e.contains("id='bind'")) {
            d.stage = 2;
            write(c, "<enable xmlns='urn:xmpp:sm:3'/>");
            return;
        }
        if (e.startsWith("<enabled")) {
            d.outStanzas = 0;
            d.inStanzas = 0;
            d.outStanzas += 2;
            write(c, "<iq type='set' id='carbons'><enable xmlns='urn:xmpp:carbons:2'/></iq><presence/>");
            return;
        }
        if (e.startsWith("<r ") || e.startsWith("<r/")) {
            acksSent++;
            write(c, "<a xmlns='urn:xmpp:sm:3' h='" + d.inStanzas + "'/>");
            return;
        }
        if (e.startsWith("<a ")) {
            long h = Long.parseLong(attr(e, "h"));
            long now = System.nanoTime();
            while (!d.pending.isEmpty() && d.pending.peek()[0] <= h) {
                long[] p = d.pending.poll();
                inFlight--;
                answered++;
                long at = d.sentAt[(int) p[1]];
                if (at >= measureFrom && at < measureTo) {
                    ANSWER.add(now - at);
                }
                if (now >= measureFrom && now < measureTo) {
                    answeredMeasured++;
                }
                d.user.peer.received++;
            }
            return;
        }
        if (e.startsWith("<message") || e.startsWith("<presence") || e.startsWith("<iq")) {
            if (d.stage >= 2) {
                d.inStanzas++;
            }
            if (e.startsWith("<iq") && e.contains("id='carbons'")) {
                if (d.stage == 2) {
                    d.stage = 3;
                    Runnable r = d.onReady;
                    d.onReady = null;
                    c.done = null;
                    r.run();
                }
                return;
            }
            if (!e.startsWith("<message")) {
                return;
            }
            long now = System.nanoTime();
            String id;
            if (e.contains("urn:xmpp:carbons:2")) {
                int fwd = e.indexOf("<message", 8);
                id = fwd < 0 ? null : attr(e.substring(fwd), "id");
                if (e.contains("<sent xmlns='urn:xmpp:carbons:2'") || e.contains("<sent xmlns=\"urn:xmpp:carbons:2\"")) {
                    carbonsSent++;
                    id = null;
                } else {
                    carbonsReceived++;
                }
            } else {
                id = attr(e, "id");
                if (e.contains("urn:xmpp:chat-markers:0") && !e.contains("<body")) {
                    markersGot++;
                    id = null;
                } else {
                    directGot++;
                }
            }
            if (id != null && id.startsWith("d")) {
                int dash = id.indexOf('-');
                int from = Integer.parseInt(id, 1, dash, 10);
                int k = Integer.parseInt(id, dash + 1, id.length(), 10);
                BitSet b = d.got.computeIfAbsent(from, x -> new BitSet());
                if (b.get(k)) {
                    duplicates++;
                } else {
                    b.set(k);
                    d.gotCount++;
                    d.lastId = id;
                    long at = devs[from].sentAt[k];
                    if (at >= measureFrom && at < measureTo) {
                        PUSH.add(now - at);
                    }
                }
            }
            acksSent++; // every received stanza acknowledged at once, as a Roost device acks every chatMsg
            d.ackedIn = d.inStanzas;
            write(c, "<a xmlns='urn:xmpp:sm:3' h='" + d.inStanzas + "'/>");
            return;
        }
        if (e.startsWith("<stream:error")) {
            ERRORS.add("stream-error: " + e.substring(0, Math.min(200, e.length())));
            return;
        }
        ERRORS.add("element:" + e.substring(0, Math.min(30, e.length())));
    }

    static String attr(String e, String name) {
        int end = e.indexOf('>');
        for (char q : new char[] {'\'', '"'}) {
            String k = " " + name + "=" + q;
            int i = e.indexOf(k);
            if (i >= 0 && (end < 0 || i < end)) {
                int from = i + k.length();
                return e.substring(from, e.indexOf(q, from));
            }
        }
        return null;
    }

    // ---- the selector loop

    static XConn open() {
        try {
            SocketChannel ch = SocketChannel.open();
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            XConn c = new XConn();
            c.ch = ch;
            if (ch.connect(address)) {
                ch.register(selector, SelectionKey.OP_READ, c);
                write(c, STREAM);
            } else {
                ch.register(selector, SelectionKey.OP_CONNECT, c);
            }
            return c;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static void execute(Runnable r) {
        TASKS.add(r);
        selector.wakeup();
    }

    static void schedule(long at, Runnable r) {
        long id = timerSeq++;
        TIMER_AT.add(new long[] {at, id});
        TIMER_TASK.put(id, r);
    }

    static <T> T onLoop(java.util.function.Supplier<T> s) {
        CompletableFuture<T> f = new CompletableFuture<>();
        execute(() -> f.complete(s.get()));
        try {
            return f.get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static void loop() {
        try {
            while (true) {
                long[] next = TIMER_AT.peek();
                long waitMs = next == null ? 0 : Math.max(1, (next[0] - System.nanoTime()) / 1_000_000);
                selector.select(waitMs);
                for (var it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                    SelectionKey key = it.next();
                    it.remove();
                    XConn c = (XConn) key.attachment();
                    try {
                        if (!key.isValid()) {
                            continue;
                        }
                        if (key.isConnectable()) {
                            c.ch.finishConnect();
                            key.interestOps(SelectionKey.OP_READ);
                            write(c, STREAM);
                            continue;
                        }
                        if (key.isWritable()) {
                            c.out.flip();
                            c.ch.write(c.out);
                            if (c.out.hasRemaining()) {
                                c.out.compact();
                            } else {
                                c.out = null;
                                key.interestOps(SelectionKey.OP_READ);
                            }
                        }
                        if (key.isValid() && key.isReadable()) {
                            read(c);
                        }
                    } catch (IOException | RuntimeException e) {
                        if (!(e instanceof IOException)) {
                            ERRORS.add("client: " + e);
                        }
                        closeConn(c);
                    }
                }
                Runnable task;
                while ((task = TASKS.poll()) != null) {
                    task.run();
                }
                long now = System.nanoTime();
                while (!TIMER_AT.isEmpty() && TIMER_AT.peek()[0] <= now) {
                    TIMER_TASK.remove(TIMER_AT.poll()[1]).run();
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static void read(XConn c) throws IOException {
        c.in.clear();
        int n = c.ch.read(c.in);
        if (n < 0) {
            closeConn(c);
            return;
        }
        c.text.append(new String(c.in.array(), 0, n, StandardCharsets.UTF_8)); // ASCII here: no split characters
        StringBuilder t = c.text;
        int i = c.scan;
        while (!c.closed) {
            int lt = t.indexOf("<", i);
            if (lt < 0) {
                i = t.length();
                break;
            }
            int gt = t.indexOf(">", lt);
            if (gt < 0) {
                i = lt;
                break;
            }
            char ch = t.charAt(lt + 1);
            i = gt + 1;
            if (ch == '?') {
                continue;
            }
            if (ch == '/') {
                c.depth--;
                if (c.depth == 1 && c.elemStart >= 0) {
                    String e = t.substring(c.elemStart, gt + 1);
                    c.elemStart = -1;
                    element(c, e);
                } else if (c.depth <= 0) {
                    closeConn(c); // </stream:stream>
                }
            } else if (gt - lt > 14 && "stream:stream".contentEquals(t.subSequence(lt + 1, lt + 14))) {
                c.depth = 1;
                element(c, t.substring(lt, gt + 1));
            } else if (t.charAt(gt - 1) == '/') {
                if (c.depth == 1) {
                    element(c, t.substring(lt, gt + 1));
                }
            } else {
                if (c.depth == 1) {
                    c.elemStart = lt;
                }
                c.depth++;
            }
            if (c.reset) {
                c.reset = false;
                return; // the element restarted the stream (SASL success): the buffer was reset
            }
        }
        // drop what is consumed
        int keep = c.elemStart >= 0 ? c.elemStart : i;
        if (keep > 0) {
            t.delete(0, keep);
            if (c.elemStart >= 0) {
                c.elemStart -= keep;
            }
            i -= keep;
        }
        c.scan = i;
    }

    static void write(XConn c, String s) {
        if (c.closed) {
            return;
        }
        ByteBuffer data = ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
        try {
            if (c.out == null) {
                c.ch.write(data);
                if (data.hasRemaining()) {
                    c.out = ByteBuffer.allocate(Math.max(8192, data.remaining() * 2)).put(data);
                    c.ch.keyFor(selector).interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                }
            } else {
                if (c.out.remaining() < data.remaining()) {
                    c.out = ByteBuffer.allocate((c.out.position() + data.remaining()) * 2).put(c.out.flip());
                }
                c.out.put(data);
            }
        } catch (IOException e) {
            closeConn(c);
        }
    }

    static void closeConn(XConn c) {
        if (c.closed) {
            return;
        }
        c.closed = true;
        try {
            c.ch.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        if (c.register != null && c.done != null) {
            ERRORS.add("register: connection closed");
            Runnable r = c.done;
            c.done = null;
            r.run();
        }
        if (c.dev != null && !c.dev.closing) {
            if (c.dev.stage == 3) {
                unexpectedCloses++;
            } else if (c.done != null) {
                ERRORS.add("login failed at stage " + c.dev.stage + " after " + (c.last == null ? "nothing"
                        : c.last.substring(0, Math.min(60, c.last.length()))));
            }
            Runnable r = c.done;
            c.done = null;
            if (r != null) {
                r.run();
            }
        }
    }
}
