package io.roost.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.roost.client.device.Conversation;
import io.roost.client.device.DeviceListener;
import io.roost.client.device.Kick;
import io.roost.client.device.Message;
import io.roost.client.device.Notice;
import io.roost.client.device.Presence;
import io.roost.client.device.Receipt;
import io.roost.client.device.RoostDevice;
import io.roost.client.device.RoostFrameException;
import io.roost.client.device.Session;
import io.roost.it.TestUsers.User;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Devices through the client library (roost-client), for the ITs that use devices as apps do: set-up,
 * chat, presence, notices. One HttpClient for all of them, as a load generator has it. Each device
 * records what its listener heard ({@link Recorder}). The protocol tests, which need raw frames,
 * use {@link WsDevice}.
 */
public final class Devices {

    /** The suite's heartbeat timeout is 8 s (the announced interval 60 s): devices that live longer heartbeat every 2 s. */
    public static final Duration HEARTBEAT = Duration.ofSeconds(2);
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    private Devices() {
    }

    /** A device builder for {@code user}'s token on this device, sharing the suite's HttpClient, heartbeating every 2 s. */
    public static RoostDevice.Builder builder(URL base, User user, String deviceType, String deviceId) {
        return RoostDevice.builder(URI.create(base.toString())).httpClient(HTTP).token(user.token())
                .deviceType(deviceType).deviceId(deviceId).heartbeatAtMost(HEARTBEAT)
                .backoff(Duration.ofMillis(200), Duration.ofSeconds(2));
    }

    /** A device of {@code user} logged in, with {@code recorder} as its listener. */
    public static RoostDevice online(URL base, User user, String deviceType, String deviceId, Recorder recorder) throws Exception {
        return online(builder(base, user, deviceType, deviceId).listener(recorder));
    }

    /** The device built and logged in (within 30 s). */
    public static RoostDevice online(RoostDevice.Builder builder) throws Exception {
        RoostDevice d = builder.build();
        d.start().get(30, TimeUnit.SECONDS);
        return d;
    }

    /**
     * A request's outcome as its answer frame had it: the ok answer, or {@code {result: fail, code}}
     * from the refusal the future failed with; within 30 s.
     */
    public static JsonNode outcome(CompletableFuture<ObjectNode> request) throws Exception {
        try {
            return request.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RoostFrameException refused) {
                return RoostDevice.fields().put("result", "fail").put("code", refused.code());
            }
            throw e;
        }
    }

    /** A listener that keeps everything it heard, in order, for a test to wait for and read. */
    public static final class Recorder implements DeviceListener {
        private final List<Message> messages = new ArrayList<>();
        private final List<Receipt> receipts = new ArrayList<>();
        private final List<Presence> presences = new ArrayList<>();
        private final List<Notice> notices = new ArrayList<>();
        private final List<Kick> kicks = new ArrayList<>();
        private final List<Session> sessions = new ArrayList<>();
        private final List<Integer> closes = new ArrayList<>();
        private volatile boolean stopped;
        private volatile Throwable stopCause;

        @Override
        public synchronized void onMessage(Message message) {
            messages.add(message);
        }

        @Override
        public synchronized void onReceipt(Receipt receipt) {
            receipts.add(receipt);
        }

        @Override
        public synchronized void onPresence(Presence presence) {
            presences.add(presence);
        }

        @Override
        public synchronized void onNotice(Notice notice) {
            notices.add(notice);
        }

        @Override
        public synchronized void onKick(Kick kick) {
            kicks.add(kick);
        }

        @Override
        public synchronized void onOnline(Session session) {
            sessions.add(session);
        }

        @Override
        public synchronized void onOffline(int closeCode, String reason) {
            closes.add(closeCode);
        }

        @Override
        public void onStopped(Throwable cause) {
            stopCause = cause;
            stopped = true;
        }

        public synchronized List<Message> messages() {
            return List.copyOf(messages);
        }

        public synchronized List<Message> messages(Conversation c) {
            return messages.stream().filter(m -> m.conversation().equals(c)).toList();
        }

        public synchronized List<Receipt> receipts() {
            return List.copyOf(receipts);
        }

        public synchronized List<Presence> presences() {
            return List.copyOf(presences);
        }

        public synchronized List<Notice> notices() {
            return List.copyOf(notices);
        }

        public synchronized List<Kick> kicks() {
            return List.copyOf(kicks);
        }

        /** Every login of the device so far (the first, and one per reconnect). */
        public synchronized List<Session> sessions() {
            return List.copyOf(sessions);
        }

        /** The close code of each connection that ended (-1: no close frame). */
        public synchronized List<Integer> closes() {
            return List.copyOf(closes);
        }

        /** Waits for a kick; returns its reason. */
        public String awaitKick(Duration within) throws Exception {
            Wait.until("a kick", within, () -> !kicks().isEmpty());
            return kicks().get(0).reason();
        }

        /** Waits until the device stopped for good (a final kick, a refusal, a close or a logout). */
        public void awaitStopped(Duration within) throws Exception {
            Wait.until("the device stopped", within, this::stopped);
        }

        public boolean stopped() {
            return stopped;
        }

        public Throwable stopCause() {
            return stopCause;
        }

        /** Waits until {@code c} has at least {@code n} messages; returns them. */
        public List<Message> awaitMessages(Conversation c, int n, Duration within) throws Exception {
            Wait.until(n + " messages in " + c + " (have " + messages(c).size() + ")", within, () -> messages(c).size() >= n);
            return messages(c);
        }

        /** Waits for a notice of {@code type}; returns the first. */
        public Notice awaitNotice(String type, Duration within) throws Exception {
            return awaitNotice(type, n -> true, within);
        }

        /** Waits for a notice of {@code type} that {@code test} accepts; returns it. */
        public Notice awaitNotice(String type, Predicate<Notice> test, Duration within) throws Exception {
            Wait.until("a " + type + " notice", within, () -> notices().stream().anyMatch(n -> n.type().equals(type) && test.test(n)));
            return notices().stream().filter(n -> n.type().equals(type) && test.test(n)).findFirst().orElseThrow();
        }

        /** Waits for a presence frame of {@code uid} that {@code test} accepts; returns it. */
        public Presence awaitPresence(String uid, Predicate<Presence> test, Duration within) throws Exception {
            Wait.until("presence of " + uid, within, () -> presences().stream().anyMatch(p -> p.uid().equals(uid) && test.test(p)));
            return presences().stream().filter(p -> p.uid().equals(uid) && test.test(p)).findFirst().orElseThrow();
        }
    }
}
