package io.roost.bench;

import jakarta.json.JsonObject;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The fault harness's devices (one per chat user of {@link FaultLoad}): each connects through the
 * load balancer, says hello, logs in, heartbeats every {@link #HEARTBEAT}, acknowledges every
 * {@code chatMsg} (cumulatively, up to the highest seq it holds without a gap; a gap that stays
 * open is read back) and, when its
 * connection ends (its node died, or the server answered {@code server-busy} and closed), connects
 * again a second later and logs in anew — as a device does.
 */
final class FaultDevices implements AutoCloseable {

    static final Duration HEARTBEAT = Duration.ofSeconds(10);
    static final Duration RECONNECT = Duration.ofSeconds(1);
    /** How long a gap in a conversation's seqs may stay open before the device reads it back. */
    static final Duration GAP_WAIT = Duration.ofSeconds(2);

    interface Answers {
        /** A device's answer: 200 a login, 503 an error server-busy, 400 another error frame. */
        void heard(String stream, int status, String detail);
    }

    final class Device implements LeanWebSockets.Listener {
        final int index;
        final FaultLoad.User user;
        final String peer;
        /** Seqs of the conversation this device holds (pushed, or caught up at the end). */
        final Set<Long> held = ConcurrentHashMap.newKeySet();
        volatile boolean online;
        volatile boolean wanted = true;
        LeanWebSockets.Conn conn;
        /** The highest seq held without a gap, and the highest held (the device's thread only). */
        long contiguous;
        long highest;
        boolean fillDue;
        /** When its connection ended, to be back (nanoTime), or 0 while connected. */
        long closedAt;

        Device(int index, FaultLoad.User user, String peer) {
            this.index = index;
            this.user = user;
            this.peer = peer;
        }

        void connect() {
            conn = client.connect(this);
        }

        @Override
        public void onOpen(LeanWebSockets.Conn c) {
            client.send(c, "{\"v\":1,\"type\":\"hello\",\"deviceId\":\"f-" + index + "\",\"deviceType\":\"android\",\"protocolVersion\":1}");
        }

        @Override
        public void onText(LeanWebSockets.Conn c, String text) {
            JsonObject f = WsConnectionsBench.json(text);
            switch (f.getString("type", "")) {
                case "hello" -> client.send(c, "{\"v\":1,\"type\":\"login\",\"token\":\"" + user.token() + "\"}");
                case "login" -> {
                    online = true;
                    logins.incrementAndGet();
                    if (closedAt != 0) {
                        long offline = (System.nanoTime() - closedAt) / 1_000_000;
                        longestOffline.accumulateAndGet(offline, Math::max);
                        closedAt = 0;
                    }
                    answers.heard("device", 200, "");
                    heartbeat(c);
                }
                case "chatMsg" -> {
                    if (f.getBoolean("again", false)) {
                        duplicatePushes.incrementAndGet();
                    }
                    hold(f.getJsonNumber("seq").longValue());
                    acknowledge(c);
                }
                case "chatOpRet" -> { // the messages of a gap, read back (or an error: the next push tries again)
                    if (f.containsKey("items")) {
                        f.getJsonArray("items").forEach(m -> hold(m.asJsonObject().getJsonNumber("seq").longValue()));
                    }
                    acknowledge(c);
                }
                case "error" -> {
                    String code = f.getString("code", "");
                    answers.heard("device", code.equals("server-busy") ? 503 : 400, text);
                }
                default -> {
                    // presence frames, receipts, heartbeats' answers: not what this load checks
                }
            }
        }

        private void hold(long seq) {
            highest = Math.max(highest, seq);
            held.add(seq);
        }

        /**
         * Acknowledges the highest seq held without a gap; a gap still open {@link #GAP_WAIT} later
         * (a push still on its way, or one that never comes) is read back ({@code chatOp messages}
         * after it), as docs/protocol.md asks of a device.
         */
        private void acknowledge(LeanWebSockets.Conn c) {
            while (held.contains(contiguous + 1)) {
                contiguous++;
            }
            if (contiguous > 0) {
                client.send(c, "{\"v\":1,\"type\":\"chatAck\",\"peer\":\"" + peer + "\",\"seq\":" + contiguous + "}");
            }
            if (highest > contiguous && !fillDue) {
                fillDue = true;
                client.schedule(System.nanoTime() + GAP_WAIT.toNanos(), () -> {
                    fillDue = false;
                    if (conn == c && !c.closed && highest > contiguous) {
                        gapFills.incrementAndGet();
                        client.send(c, "{\"v\":1,\"type\":\"chatOp\",\"seq\":\"gap\",\"op\":\"messages\",\"peer\":\"" + peer
                                + "\",\"after\":" + contiguous + ",\"limit\":100}");
                    }
                });
            }
        }

        private void heartbeat(LeanWebSockets.Conn c) {
            client.schedule(System.nanoTime() + HEARTBEAT.toNanos(), () -> {
                if (conn == c && !c.closed) {
                    client.send(c, "{\"v\":1,\"type\":\"heartbeat\"}");
                    heartbeat(c);
                }
            });
        }

        @Override
        public void onClosed(LeanWebSockets.Conn c, int code) {
            if (conn != c) {
                return;
            }
            online = false;
            if (wanted && running) {
                closedAt = System.nanoTime();
                reconnects.incrementAndGet();
                client.schedule(System.nanoTime() + RECONNECT.toNanos(), this::connect);
            }
        }
    }

    private final LeanWebSockets client;
    private final Answers answers;
    private final List<Device> devices = new ArrayList<>();
    private final AtomicLong logins = new AtomicLong();
    private final AtomicLong reconnects = new AtomicLong();
    private final AtomicLong gapFills = new AtomicLong();
    private final AtomicLong longestOffline = new AtomicLong();

    /** The longest a device went from losing its connection to its next login, in ms. */
    long longestOfflineMs() {
        return longestOffline.get();
    }
    private final AtomicLong duplicatePushes = new AtomicLong();
    private volatile boolean running = true;

    FaultDevices(URI base, List<FaultLoad.User> users, Answers answers) throws Exception {
        this.answers = answers;
        URI ws = URI.create(base.toString().replaceFirst("^http", "ws") + "/ws");
        client = new LeanWebSockets(ws.getHost(), ws.getPort(), ws.getPath());
        for (int i = 0; i < users.size(); i++) {
            devices.add(new Device(i, users.get(i), users.get(i ^ 1).uid()));
        }
    }

    void connectAll() throws Exception {
        client.execute(() -> devices.forEach(Device::connect));
        awaitSettled(Duration.ofSeconds(60));
    }

    /** Waits until every device that should be is logged in; false if some are not by then. */
    boolean awaitSettled(Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (devices.stream().anyMatch(d -> d.wanted && !d.online)) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(200);
        }
        return true;
    }

    /**
     * Every device catches up over REST from the highest seq it holds without a gap and then holds
     * every message of its conversation; the server's presence is exact (every device online; then,
     * with half of them logged out, exactly the other half).
     */
    void check(FaultLoad load, FaultLoad.Chat chat) throws Exception {
        boolean settled = awaitSettled(Duration.ofSeconds(30));
        long missing = 0;
        long caughtUp = 0;
        long pushed = 0;
        for (Device d : devices) {
            pushed += d.held.size();
            long after = d.contiguous;
            while (true) {
                HttpResponse<String> r = load.request("GET", "/api/v1/chat/users/me/conversations/" + d.peer + "/sync?after=" + after
                        + "&limit=100", "Bearer " + d.user.token(), null);
                if (r.statusCode() == 404) {
                    break; // no conversation yet
                }
                JsonObject page = WsConnectionsBench.json(r.body());
                var items = page.getJsonArray("items");
                for (var m : items) {
                    long seq = m.asJsonObject().getJsonNumber("seq").longValue();
                    if (d.held.add(seq)) {
                        caughtUp++;
                    }
                    after = Math.max(after, seq);
                }
                if (items.size() < 100) {
                    long last = page.getJsonNumber("lastSeq").longValue();
                    for (long s = 1; s <= last; s++) {
                        if (!d.held.contains(s)) {
                            missing++;
                        }
                    }
                    break;
                }
            }
        }
        load.check("devices-catch-up", settled && missing == 0, devices.size() + " devices (" + reconnects.get()
                + " reconnections, " + logins.get() + " logins): " + pushed + " messages pushed (" + duplicatePushes.get()
                + " pushed again after a missed acknowledgement, " + gapFills.get() + " gaps read back while connected), " + caughtUp
                + " caught up by sync, " + missing + " missing");

        List<String> uids = devices.stream().map(d -> d.user.uid()).toList();
        long online = WsConnectionsBench.online(load.url(), load.adminAuth(), uids);
        CompletableFuture<Void> loggedOut = new CompletableFuture<>();
        client.execute(() -> {
            for (Device d : devices.subList(0, devices.size() / 2)) {
                d.wanted = false;
                client.send(d.conn, "{\"v\":1,\"type\":\"logout\"}");
            }
            loggedOut.complete(null);
        });
        loggedOut.get();
        long expected = devices.size() - devices.size() / 2;
        long after = -1;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (after != expected && System.nanoTime() < deadline) {
            Thread.sleep(200);
            after = WsConnectionsBench.online(load.url(), load.adminAuth(), uids);
        }
        load.check("devices-presence-exact", online == devices.size() && after == expected, online + " of " + devices.size()
                + " connected devices online; after " + devices.size() / 2 + " logouts " + after + " online (expected " + expected + ")");
    }

    @Override
    public void close() throws Exception {
        running = false;
        client.close();
    }
}
