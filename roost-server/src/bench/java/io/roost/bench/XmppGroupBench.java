package io.roost.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * The group workload of {@link GroupChatBench} against ejabberd's multi-user chat (XEP-0045, mod_muc,
 * rooms archived by mod_mam), for bench/group-chat.sh: a big room, small rooms and a "channel" room of
 * the same sizes (only its owner speaks). Every member is affiliated (member) by the room's owner; the
 * members online in the Roost run are present (joined with no history), the others are affiliated
 * but not present, as a Roost member who is offline. A send is {@code <message type='groupchat'>};
 * its answer is the room's reflection to the sender (the room processed, archived and broadcast it);
 * a push is its arrival at another occupant. Every message stanza is acknowledged at once
 * (XEP-0198 {@code <a h>}), presences with the next one or when the server asks. Phases as
 * GroupChatBench's but for idle and probe (one server) and without the churners and late joiners
 * (rejoining a room catches up through MAM, which this generator does not do): warmup, mixed, big,
 * saturation. Checks every present occupant got every answered message of its rooms once, each
 * sender's in order.
 */
public final class XmppGroupBench {

    static final String HOST = "localhost";
    static final String MUC = "conference.localhost";
    static final String[] KINDS = {"big", "small", "channel"};

    static Selector selector;
    static InetSocketAddress address;
    static final ConcurrentLinkedQueue<Runnable> TASKS = new ConcurrentLinkedQueue<>();
    static final PriorityQueue<long[]> TIMER_AT = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
    static final Map<Long, Runnable> TIMER_TASK = new HashMap<>();
    static long timerSeq;

    static int inFlight;
    static int maxInFlight;
    static long sent;
    static long answered;
    static long pushes;
    static long duplicates;
    static long outOfOrder;
    static long presences;
    static long joinsRefused;
    static long skipped;
    static long unexpectedCloses;
    static boolean closing;
    static final ChatStats.Counts ERRORS = new ChatStats.Counts();
    static XDev[] devs;
    static String[] names;
    static Room big;
    static Room channel;
    static final List<Room> smalls = new ArrayList<>();
    static final List<Room> rooms = new ArrayList<>();
    static final Map<String, Room> roomsByJid = new HashMap<>();
    static Random rnd;
    static Phase phase;

    static final class Phase {
        final String name;
        final double[] rates;
        final int window;
        final int seconds;
        long fromNs;
        long toNs = Long.MAX_VALUE;
        long fromMs;
        long toMs;
        final long[] due = new long[3];
        long sends;
        long answeredIn;
        long pushes;
        final ChatStats.Latencies answer = new ChatStats.Latencies();

        Phase(String name, int seconds, double[] rates, int window) {
            this.name = name;
            this.seconds = seconds;
            this.rates = rates;
            this.window = window;
        }
    }

    static final class Room {
        final int kind;
        int index;
        String jid;
        int[] members;
        final List<XDev> online = new ArrayList<>();
        final List<XDev> senders = new ArrayList<>();
        long answeredMsgs;
        Runnable onReady;
        int affPending;

        Room(int kind) {
            this.kind = kind;
        }
    }

    static final class XConn {
        SocketChannel ch;
        ByteBuffer in = ByteBuffer.allocate(8192);
        ByteBuffer out;
        final StringBuilder text = new StringBuilder();
        int scan;
        int depth;
        int elemStart = -1;
        boolean closed;
        boolean reset;
        String last;
        XDev dev;
        String register;
        Runnable done;
    }

    /** What one occupant got of one room: per sender, the last counter (order), and how many. */
    static final class Seat {
        final Room room;
        final Map<Integer, Integer> lastFrom = new HashMap<>();
        long got;
        boolean present;
        Runnable onPresent;

        Seat(Room room) {
            this.room = room;
        }
    }

    static final class XDev {
        final int index;
        final int user;
        final String name;
        XConn conn;
        int stage;
        Runnable onReady;
        long inStanzas;
        final List<Seat> seats = new ArrayList<>();
        int counter;
        long[] sentAt = new long[64];
        int[] sentRoom = new int[64];
        int[] pushN = new int[64];
        long[] lastPush = new long[64];
        boolean closing;

        XDev(int index, int user, String name) {
            this.index = index;
            this.user = user;
            this.name = name;
        }

        Seat seat(Room r) {
            for (Seat s : seats) {
                if (s.room == r) {
                    return s;
                }
            }
            return null;
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
        int port = Integer.parseInt(o.getOrDefault("port", "5222"));
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
        int probeSize = 10; // no probe room (one server), but the same users as GroupChatBench's
        double rateBig = Double.parseDouble(o.getOrDefault("rate-big", "20"));
        double rateSmall = Double.parseDouble(o.getOrDefault("rate-small", "40"));
        double rateChannel = Double.parseDouble(o.getOrDefault("rate-channel", "1"));
        int window = Integer.parseInt(o.getOrDefault("window", "32"));
        int warmup = Integer.parseInt(o.getOrDefault("warmup", "40"));
        int duration = Integer.parseInt(o.getOrDefault("duration", "30"));
        int shortPhase = Integer.parseInt(o.getOrDefault("short-phase", "20"));
        int settle = Integer.parseInt(o.getOrDefault("settle", "45"));
        maxInFlight = Integer.parseInt(o.getOrDefault("max-in-flight", "2000"));
        long seed = o.containsKey("seed") ? Long.parseLong(o.get("seed")) : System.nanoTime() % 1_000_000_007L;
        rnd = new Random(seed);
        String run = Long.toHexString(System.nanoTime());
        int nUsers = Math.max(channelMembers, bigMembers + nSmall * smallSize + probeSize + channelOnline);
        System.out.printf("SIZES xmpp port=%d scale=%s users=%d big=%d/%d online small=%dx%d/%d online channel=%d/%d online "
                        + "rates big=%s small=%s channel=%s /s window=%d seed=%d%n",
                port, scale, nUsers, bigMembers, bigOnline, nSmall, smallSize, smallOnline, channelMembers, channelOnline, rateBig, rateSmall,
                rateChannel, window, seed);
        selector = Selector.open();
        address = new InetSocketAddress("127.0.0.1", port);
        Thread loop = new Thread(XmppGroupBench::loop, "xmpp-client");
        loop.setDaemon(true);
        loop.start();
        phase = new Phase("setup", 0, new double[3], 0);

        // 1. Users, registered in-band, 100 at a time
        names = new String[nUsers];
        for (int i = 0; i < nUsers; i++) {
            names[i] = "gx" + run + "u" + i;
        }
        long t0 = System.nanoTime();
        inTurn("registrations", nUsers, 100, (k, next) -> {
            XConn c = open();
            c.register = names[k];
            c.done = next;
            return c;
        });
        System.out.printf("registered %d users in %.1f s (errors %s)%n", nUsers, (System.nanoTime() - t0) / 1e9, ERRORS);

        // 2. Rooms and the online users (the same as GroupChatBench's)
        int next = 0;
        big = new Room(0);
        big.members = GroupChatBench.range(next, bigMembers);
        next += bigMembers;
        for (int i = 0; i < nSmall; i++) {
            Room r = new Room(1);
            r.members = GroupChatBench.range(next, smallSize);
            next += smallSize;
            smalls.add(r);
        }
        int[] probe = GroupChatBench.range(next, probeSize);
        next += probeSize;
        int channelOnlyFrom = next;
        channel = new Room(2);
        channel.members = GroupChatBench.range(0, channelMembers);
        rooms.add(big);
        rooms.addAll(smalls);
        rooms.add(channel);
        for (int i = 0; i < rooms.size(); i++) {
            Room r = rooms.get(i);
            r.index = i;
            r.jid = "gx" + run + "r" + i + "@" + MUC;
            roomsByJid.put(r.jid, r);
        }
        java.util.BitSet onlineUsers = new java.util.BitSet();
        for (int i = 0; i < bigOnline; i++) {
            onlineUsers.set(big.members[i]);
        }
        for (Room r : smalls) {
            for (int i = 0; i < smallOnline; i++) {
                onlineUsers.set(r.members[i]);
            }
        }
        for (int m : probe) {
            onlineUsers.set(m);
        }
        for (int u = channelOnlyFrom; onlineUsers.cardinality() < channelOnline + probeSize && u < nUsers; u++) {
            onlineUsers.set(u);
        }
        for (int m : probe) {
            onlineUsers.clear(m); // the probe group's members are online in Roost only for the probe phase
        }
        List<XDev> all = new ArrayList<>();
        XDev[] devOfUser = new XDev[nUsers];
        for (int u = onlineUsers.nextSetBit(0); u >= 0; u = onlineUsers.nextSetBit(u + 1)) {
            XDev d = new XDev(all.size(), u, names[u]);
            all.add(d);
            devOfUser[u] = d;
        }
        devs = all.toArray(new XDev[0]);
        for (Room r : rooms) {
            for (int m : r.members) {
                if (devOfUser[m] != null) {
                    r.online.add(devOfUser[m]);
                    devOfUser[m].seats.add(new Seat(r));
                    if (r.kind != 2 || m == r.members[0]) {
                        r.senders.add(devOfUser[m]);
                    }
                }
            }
        }

        // 3. Devices log in
        t0 = System.nanoTime();
        long[] failed = {0};
        inTurn("logins", devs.length, 100, (k, nx) -> {
            XDev d = devs[k];
            d.onReady = nx;
            d.conn = open();
            d.conn.dev = d;
            d.conn.done = () -> {
                failed[0]++;
                nx.run();
            };
            return d.conn;
        });
        System.out.printf("logged in: %d devices in %.1f s (%d failed; errors %s)%n", devs.length - failed[0], (System.nanoTime() - t0) / 1e9,
                failed[0], ERRORS);
        if (failed[0] > 0) {
            throw new IllegalStateException("logins failed");
        }

        // 4. Each owner creates its room (instant, persistent, archived), affiliates every member; then
        // the online members join it with no history
        t0 = System.nanoTime();
        inTurn("rooms", rooms.size(), 20, (k, nx) -> {
            Room r = rooms.get(k);
            XDev owner = devOfUser[r.members[0]];
            r.onReady = nx;
            Seat s = owner.seat(r);
            s.onPresent = () -> write(owner.conn, "<iq type='set' id='cfg" + r.index + "' to='" + r.jid + "'><query xmlns='http://jabber.org/protocol/muc#owner'>"
                    + "<x xmlns='jabber:x:data' type='submit'/></query></iq>");
            joinRoom(owner, r);
            return owner.conn;
        });
        System.out.printf("rooms: %d created, members affiliated in %.1f s (errors %s)%n", rooms.size(), (System.nanoTime() - t0) / 1e9, ERRORS);
        t0 = System.nanoTime();
        List<Seat[]> joins = new ArrayList<>();
        for (XDev d : devs) {
            for (Seat s : d.seats) {
                if (!s.present) {
                    joins.add(new Seat[] {s});
                }
            }
        }
        List<XDev> joiners = new ArrayList<>();
        for (XDev d : devs) {
            for (Seat s : d.seats) {
                if (!s.present) {
                    joiners.add(d);
                }
            }
        }
        inTurn("joins", joins.size(), 50, (k, nx) -> {
            Seat s = joins.get(k)[0];
            XDev d = joiners.get(k);
            s.onPresent = nx;
            joinRoom(d, s.room);
            return d.conn;
        });
        System.out.printf("joined: %d occupants in %.1f s, %d presences received (errors %s)%n", joins.size() - onLoop(() -> joinsRefused),
                (System.nanoTime() - t0) / 1e9, onLoop(() -> presences), ERRORS);
        if (onLoop(() -> joinsRefused) > 0) {
            throw new IllegalStateException(joinsRefused + " joins refused");
        }

        // 5. Phases
        double[] mixedRates = {rateBig, rateSmall, rateChannel};
        List<Phase> phases = List.of(
                new Phase("warmup", warmup, mixedRates, 0),
                new Phase("mixed", duration, mixedRates, 0),
                new Phase("big", shortPhase, new double[] {rateBig, 0, 0}, 0),
                new Phase("saturation", shortPhase, new double[3], window));
        Runnable[] pace = new Runnable[1];
        pace[0] = () -> {
            long now = System.nanoTime();
            Phase p = phase;
            if (closing) {
                return;
            }
            if (now < p.toNs) {
                for (int kind = 0; kind < 3; kind++) {
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
            schedule(now + 1_000_000L, pace[0]);
        };
        execute(pace[0]);
        for (Phase p : phases) {
            onLoop(() -> {
                p.fromNs = System.nanoTime();
                p.toNs = p.fromNs + p.seconds * 1_000_000_000L;
                p.fromMs = System.currentTimeMillis();
                phase = p;
                System.out.println("PHASE_START " + p.name + " " + p.fromMs);
                for (int i = 0; i < p.window; i++) {
                    sendOne(0, p.fromNs);
                }
                return 0;
            });
            Thread.sleep(p.seconds * 1000L);
            Thread.sleep(Math.max(0, (p.toNs - System.nanoTime()) / 1_000_000));
            onLoop(() -> {
                p.toMs = System.currentTimeMillis();
                System.out.println("PHASE_END " + p.name + " " + p.toMs);
                return 0;
            });
            Thread.sleep(p.window > 0 ? 3000 : 500);
        }
        onLoop(() -> {
            phase = new Phase("settle", 0, new double[3], 0);
            return 0;
        });
        long until = System.nanoTime() + 120_000_000_000L;
        while (onLoop(() -> inFlight) > 0 && System.nanoTime() < until) {
            Thread.sleep(200);
        }
        until = System.nanoTime() + settle * 1_000_000_000L;
        while (onLoop(XmppGroupBench::missing) > 0 && System.nanoTime() < until) {
            Thread.sleep(500);
        }
        long lost = onLoop(XmppGroupBench::missing);

        for (Phase p : phases.subList(1, phases.size())) {
            double secs = p.seconds;
            StringBuilder line = new StringBuilder(String.format("PHASE name=%s from=%d to=%d secs=%.0f sends_per_s=%.1f answered_per_s=%.1f "
                            + "pushes_per_s=%.0f answer_p50_ms=%.1f answer_p99_ms=%.1f",
                    p.name, p.fromMs, p.toMs, secs, p.sends / secs, p.answeredIn / secs, p.pushes / secs, p.answer.ms(0.5), p.answer.ms(0.99)));
            ChatStats.Latencies allLat = new ChatStats.Latencies();
            for (int kind = 0; kind < 3; kind++) {
                ChatStats.Latencies lat = new ChatStats.Latencies();
                long incomplete = 0;
                for (XDev d : devs) {
                    for (int k = 0; k < d.counter; k++) {
                        Room r = rooms.get(d.sentRoom[k]);
                        long at = d.sentAt[k];
                        if (r.kind != kind || at < p.fromNs || at >= p.toNs) {
                            continue;
                        }
                        if (d.pushN[k] >= r.online.size() - 1) {
                            lat.add(d.lastPush[k] - at);
                            allLat.add(d.lastPush[k] - at);
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
            line.append(String.format(" last_p50_ms=%.1f last_p99_ms=%.1f", allLat.ms(0.5), allLat.ms(0.99)));
            System.out.println(line);
        }
        System.out.printf("whole run: %d sent, %d answered (reflected), skipped %d; pushes %d (duplicates %d, out of order %d); presences %d; "
                + "unexpected closes %d; errors %s%n", sent, answered, skipped, pushes, duplicates, outOfOrder, presences, unexpectedCloses, ERRORS);
        System.out.printf("client outcome: %d deliveries missing%n", lost);
        boolean ok = lost == 0 && duplicates == 0 && outOfOrder == 0 && inFlight == 0 && unexpectedCloses == 0;
        System.out.printf("RESULT devices=%d lost=%d dup=%d out_of_order=%d outcome=%s%n", devs.length, lost, duplicates, outOfOrder,
                ok ? "PASS" : "FAIL");
        System.out.flush();
        onLoop(() -> {
            closing = true;
            for (XDev d : devs) {
                d.closing = true;
                if (d.conn != null && !d.conn.closed) {
                    write(d.conn, "</stream:stream>");
                }
            }
            return 0;
        });
        Thread.sleep(1000); // the stream closes queued above reach the server before the JVM ends, as XmppChatBench's
        System.exit(0);
    }

    static void joinRoom(XDev d, Room r) {
        write(d.conn, "<presence to='" + r.jid + "/" + d.name + "'><x xmlns='http://jabber.org/protocol/muc'><history maxstanzas='0'/></x></presence>");
    }

    static void sendOne(int kind, long now) {
        if (inFlight >= maxInFlight) {
            skipped++;
            return;
        }
        Room r = switch (kind) {
            case 0 -> big;
            case 1 -> smalls.get(rnd.nextInt(smalls.size()));
            default -> channel;
        };
        XDev d = r.senders.get(rnd.nextInt(r.senders.size()));
        if (d.stage != 3 || d.conn.closed) {
            skipped++;
            return;
        }
        int k = d.counter++;
        if (k == d.sentAt.length) {
            int n = k * 2;
            d.sentAt = Arrays.copyOf(d.sentAt, n);
            d.sentRoom = Arrays.copyOf(d.sentRoom, n);
            d.pushN = Arrays.copyOf(d.pushN, n);
            d.lastPush = Arrays.copyOf(d.lastPush, n);
        }
        d.sentAt[k] = now;
        d.sentRoom[k] = r.index;
        inFlight++;
        sent++;
        if (now >= phase.fromNs && now < phase.toNs) {
            phase.sends++;
        }
        write(d.conn, "<message to='" + r.jid + "' type='groupchat' id='d" + d.index + "-" + k + "'><body>d" + d.index + "-" + k + "</body></message>");
    }

    /** Deliveries of answered messages that present occupants have not got. */
    static long missing() {
        long m = 0;
        for (XDev d : devs) {
            for (Seat s : d.seats) {
                long own = 0;
                for (int k = 0; k < d.counter; k++) {
                    if (d.sentRoom[k] == s.room.index && d.pushN[k] >= 0 && k < d.counter) {
                        own++;
                    }
                }
                m += Math.max(0, s.room.answeredMsgs - own - s.got);
            }
        }
        return m;
    }

    interface Opener {
        XConn open(int k, Runnable next);
    }

    static void inTurn(String what, int n, int inFlightMax, Opener opener) throws Exception {
        CompletableFuture<Void> all = new CompletableFuture<>();
        if (n == 0) {
            return;
        }
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
            for (int i = 0; i < Math.min(inFlightMax, n); i++) {
                step[0].run();
            }
        });
        // progress every 10 s, and a stall (nothing done for 120 s) ends the run with what the server said
        long t0 = System.nanoTime();
        int lastDone = -1;
        long lastProgress = t0;
        while (true) {
            try {
                all.get(10, TimeUnit.SECONDS);
                return;
            } catch (java.util.concurrent.TimeoutException e) {
                int d = onLoop(() -> done[0]);
                long now = System.nanoTime();
                if (d != lastDone) {
                    lastDone = d;
                    lastProgress = now;
                }
                String errors = onLoop(() -> ERRORS.total() + (ERRORS.m.isEmpty() ? "" : ", first: " + ERRORS.m.keySet().iterator().next()));
                System.out.printf("progress: %s %d of %d after %.0f s (errors %s)%n", what, d, n, (now - t0) / 1e9, errors);
                if (now - lastProgress > 120_000_000_000L || now - t0 > 30 * 60_000_000_000L) {
                    throw new IllegalStateException(what + " stalled at " + d + " of " + n + "; errors " + onLoop(ERRORS::toString));
                }
            }
        }
    }

    static final String STREAM = "<?xml version='1.0'?><stream:stream to='" + HOST
            + "' xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' version='1.0'>";

    static void ack(XDev d) {
        write(d.conn, "<a xmlns='urn:xmpp:sm:3' h='" + d.inStanzas + "'/>");
    }

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
                String plain = Base64.getEncoder().encodeToString(("\0" + d.name + "\0pw").getBytes(StandardCharsets.UTF_8));
                write(c, "<auth xmlns='urn:ietf:params:xml:ns:xmpp-sasl' mechanism='PLAIN'>" + plain + "</auth>");
            } else if (d.stage == 1) {
                write(c, "<iq type='set' id='bind'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><resource>r0</resource></bind></iq>");
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
            d.inStanzas = 0;
            d.stage = 3;
            Runnable r = d.onReady;
            d.onReady = null;
            c.done = null;
            if (r != null) {
                r.run();
            }
            return;
        }
        if (e.startsWith("<r ") || e.startsWith("<r/")) {
            ack(d);
            return;
        }
        if (e.startsWith("<a ")) {
            return;
        }
        if (!(e.startsWith("<message") || e.startsWith("<presence") || e.startsWith("<iq"))) {
            if (e.startsWith("<stream:error")) {
                ERRORS.add("stream-error: " + e.substring(0, Math.min(200, e.length())));
            } else {
                ERRORS.add("element:" + e.substring(0, Math.min(30, e.length())));
            }
            return;
        }
        d.inStanzas++;
        String from = attr(e, "from");
        int slash = from == null ? -1 : from.indexOf('/');
        Room r = from == null ? null : roomsByJid.get(slash < 0 ? from : from.substring(0, slash));
        if (e.startsWith("<presence")) {
            presences++;
            if (r != null && e.contains("type='error'")) {
                // a refused join (a full room answers <resource-constraint/>): counted, and the joins go on,
                // so that the run ends with the server's answer instead of waiting for a self-presence
                int at = e.indexOf("<error");
                ERRORS.add("presence-error: " + (at < 0 ? e.substring(0, Math.min(300, e.length())) : e.substring(at, Math.min(at + 300, e.length()))));
                Seat s = d.seat(r);
                if (s != null && !s.present) {
                    joinsRefused++;
                    Runnable run = s.onPresent;
                    s.onPresent = null;
                    if (run != null) {
                        run.run();
                    }
                }
                return;
            }
            if (r != null && (e.contains("code='110'") || e.contains("code=\"110\""))) {
                Seat s = d.seat(r);
                if (s != null && !s.present) {
                    s.present = true;
                    Runnable run = s.onPresent;
                    s.onPresent = null;
                    if (run != null) {
                        run.run();
                    }
                }
            }
            return;
        }
        if (e.startsWith("<iq")) {
            String id = attr(e, "id");
            if (e.contains("type='error'")) {
                ERRORS.add("iq-error " + id + ": " + e.substring(0, Math.min(300, e.length())));
            }
            if (id != null && id.startsWith("cfg") && r != null) {
                affiliate(d, r); // the owner's instant room is configured: now its members
            } else if (id != null && id.startsWith("aff") && r != null) {
                if (--r.affPending == 0) {
                    Runnable run = r.onReady;
                    r.onReady = null;
                    if (run != null) {
                        run.run();
                    }
                }
            }
            ack(d);
            return;
        }
        // a message
        int b = e.indexOf("<body>");
        if (b < 0 || r == null) {
            ack(d); // the subject on a join, or something else
            return;
        }
        long now = System.nanoTime();
        String body = e.substring(b + 6, e.indexOf("</body>", b));
        int dash = body.indexOf('-');
        int sender = Integer.parseInt(body, 1, dash, 10);
        int k = Integer.parseInt(body, dash + 1, body.length(), 10);
        XDev s = devs[sender];
        if (s == d) { // the reflection: the answer
            inFlight--;
            answered++;
            r.answeredMsgs++;
            long at = d.sentAt[k];
            if (at >= phase.fromNs && at < phase.toNs) {
                phase.answer.add(now - at);
            }
            if (now >= phase.fromNs && now < phase.toNs) {
                phase.answeredIn++;
            }
            if (phase.window > 0 && !closing && now < phase.toNs) {
                sendOne(0, now);
            }
        } else {
            pushes++;
            if (now >= phase.fromNs && now < phase.toNs) {
                phase.pushes++;
            }
            Seat seat = d.seat(r);
            Integer last = seat.lastFrom.get(sender);
            if (last != null && k == last) {
                duplicates++;
            } else {
                if (last != null && k < last) {
                    outOfOrder++;
                }
                seat.lastFrom.put(sender, Math.max(k, last == null ? -1 : last));
                seat.got++;
                s.pushN[k]++;
                s.lastPush[k] = Math.max(s.lastPush[k], now);
            }
        }
        ack(d);
    }

    /** The owner affiliates every member of the room, 500 to an iq. */
    static void affiliate(XDev owner, Room r) {
        List<String> iqs = new ArrayList<>();
        StringBuilder sb = null;
        int n = 0;
        for (int i = 1; i < r.members.length; i++) {
            if (sb == null) {
                sb = new StringBuilder("<iq type='set' id='aff" + r.index + "-" + iqs.size() + "' to='" + r.jid
                        + "'><query xmlns='http://jabber.org/protocol/muc#admin'>");
            }
            sb.append("<item affiliation='member' jid='").append(names[r.members[i]]).append('@').append(HOST).append("'/>");
            if (++n == 500) {
                iqs.add(sb.append("</query></iq>").toString());
                sb = null;
                n = 0;
            }
        }
        if (sb != null) {
            iqs.add(sb.append("</query></iq>").toString());
        }
        r.affPending = iqs.size();
        if (iqs.isEmpty()) {
            Runnable run = r.onReady;
            r.onReady = null;
            run.run();
        }
        for (String iq : iqs) {
            write(owner.conn, iq);
        }
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
