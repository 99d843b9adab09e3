package io.roost.bench;

import io.roost.client.device.DeviceListener;
import io.roost.client.device.Message;
import io.roost.client.device.RoostDevice;
import io.roost.client.device.RoostFrameException;
import io.roost.client.device.Session;
import jakarta.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The fault harness's devices (one per chat user of {@link FaultLoad}), through the client library:
 * each logs in through the load balancer, heartbeats every {@link #HEARTBEAT}, and when its
 * connection ends (its node died, or the server answered {@code server-busy} and closed) connects
 * again after a backoff and catches up, as an app built on roost-client does. The check is the
 * library's promise under faults: every message of each device's conversation reached its listener,
 * once.
 */
final class FaultDevices implements AutoCloseable {

    static final Duration HEARTBEAT = Duration.ofSeconds(10);
    static final Duration RECONNECT = Duration.ofSeconds(1);
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    interface Answers {
        /** A device's answer: 200 a login, 503 an error server-busy, 400 another error frame. */
        void heard(String stream, int status, String detail);
    }

    final class Device implements DeviceListener {
        final FaultLoad.User user;
        final String peer;
        final RoostDevice device;
        /** Seqs of the conversation the listener got. */
        final Set<Long> held = ConcurrentHashMap.newKeySet();
        volatile boolean online;
        volatile boolean wanted = true;
        /** When its connection ended (nanoTime), or 0 while connected. */
        volatile long closedAt;

        Device(URI base, int index, FaultLoad.User user, String peer) {
            this.user = user;
            this.peer = peer;
            this.device = RoostDevice.builder(base).httpClient(HTTP).token(user.token()).deviceType("android")
                    .deviceId("f-" + index).heartbeatAtMost(HEARTBEAT).backoff(RECONNECT, RECONNECT.multipliedBy(4))
                    .listener(this).build();
        }

        @Override
        public void onMessage(Message m) {
            if (!held.add(m.seq())) {
                deliveredTwice.incrementAndGet();
            }
        }

        @Override
        public void onOnline(Session s) {
            online = true;
            logins.incrementAndGet();
            long closed = closedAt;
            if (closed != 0) {
                longestOffline.accumulateAndGet((System.nanoTime() - closed) / 1_000_000, Math::max);
                closedAt = 0;
            }
            answers.heard("device", 200, "");
        }

        @Override
        public void onOffline(int code, String reason) {
            online = false;
            if (wanted) {
                closedAt = System.nanoTime();
                reconnects.incrementAndGet();
            }
        }

        @Override
        public void onError(RoostFrameException e) {
            answers.heard("device", e.code().equals("server-busy") ? 503 : 400, e.getMessage());
        }
    }

    private final Answers answers;
    private final List<Device> devices = new ArrayList<>();
    private final AtomicLong logins = new AtomicLong();
    private final AtomicLong reconnects = new AtomicLong();
    private final AtomicLong deliveredTwice = new AtomicLong();
    private final AtomicLong longestOffline = new AtomicLong();

    /** The longest a device went from losing its connection to its next login, in ms. */
    long longestOfflineMs() {
        return longestOffline.get();
    }

    FaultDevices(URI base, List<FaultLoad.User> users, Answers answers) {
        this.answers = answers;
        for (int i = 0; i < users.size(); i++) {
            devices.add(new Device(base, i, users.get(i), users.get(i ^ 1).uid()));
        }
    }

    void connectAll() throws Exception {
        devices.forEach(d -> d.device.start());
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
     * Every device's listener got every message of its conversation once (the library caught up
     * after each reconnect); the server's presence is exact (every device online; then, with half
     * of them logged out, exactly the other half).
     */
    void check(FaultLoad load, FaultLoad.Chat chat) throws Exception {
        boolean settled = awaitSettled(Duration.ofSeconds(30));
        long[] last = new long[devices.size()];
        for (int i = 0; i < devices.size(); i++) {
            last[i] = lastSeq(load, devices.get(i));
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        long missing;
        do {
            missing = 0;
            for (int i = 0; i < devices.size(); i++) {
                for (long s = 1; s <= last[i]; s++) {
                    if (!devices.get(i).held.contains(s)) {
                        missing++;
                    }
                }
            }
        } while (missing > 0 && System.nanoTime() < deadline && sleep());
        long delivered = devices.stream().mapToLong(d -> d.held.size()).sum();
        load.check("devices-catch-up", settled && missing == 0 && deliveredTwice.get() == 0, devices.size() + " devices ("
                + reconnects.get() + " reconnections, " + logins.get() + " logins): " + delivered + " messages delivered, "
                + deliveredTwice.get() + " delivered twice, " + missing + " missing");

        List<String> uids = devices.stream().map(d -> d.user.uid()).toList();
        long online = WsConnectionsBench.online(load.url(), load.adminAuth(), uids);
        for (Device d : devices.subList(0, devices.size() / 2)) {
            d.wanted = false;
            d.device.logout(false);
        }
        long expected = devices.size() - devices.size() / 2;
        long after = -1;
        deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (after != expected && System.nanoTime() < deadline) {
            Thread.sleep(200);
            after = WsConnectionsBench.online(load.url(), load.adminAuth(), uids);
        }
        load.check("devices-presence-exact", online == devices.size() && after == expected, online + " of " + devices.size()
                + " connected devices online; after " + devices.size() / 2 + " logouts " + after + " online (expected " + expected + ")");
    }

    /** The device's conversation's last seq as the server has it (0: none yet). */
    private static long lastSeq(FaultLoad load, Device d) throws Exception {
        HttpResponse<String> r = load.request("GET", "/api/v1/chat/users/me/conversations/" + d.peer + "/sync?after=0&limit=1",
                "Bearer " + d.user.token(), null);
        if (r.statusCode() == 404) {
            return 0;
        }
        JsonObject page = WsConnectionsBench.json(r.body());
        return page.getJsonNumber("lastSeq").longValue();
    }

    private static boolean sleep() {
        try {
            Thread.sleep(200);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public void close() throws Exception {
        for (Device d : devices) {
            d.device.close();
            d.device.stopped().get(10, TimeUnit.SECONDS);
        }
    }
}
