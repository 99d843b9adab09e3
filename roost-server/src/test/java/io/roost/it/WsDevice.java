package io.roost.it;

import static io.roost.it.Http.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import jakarta.json.JsonObject;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A device on a real WebSocket to /ws: frames received in order, and how it was closed. Like a
 * real client it acknowledges every {@code chatMsg} it gets ({@code chatAck}), unless a test turns
 * {@link #autoAck} off to play a device that has silently gone.
 */
public final class WsDevice implements WebSocket.Listener {

    public final BlockingQueue<JsonObject> frames = new LinkedBlockingQueue<>();

    /** Every frame received, also those {@link #await} skipped or took: what a test checks after the fact. */
    public final java.util.List<JsonObject> history = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    /** The type of every frame received, in order, including those {@link #await} skipped. */
    private final List<String> received = Collections.synchronizedList(new ArrayList<>());
    public final CompletableFuture<Integer> closed = new CompletableFuture<>();
    private final StringBuilder partial = new StringBuilder();
    private final AtomicInteger ops = new AtomicInteger();
    public WebSocket socket;
    /** Acknowledge each chatMsg as it arrives. */
    public volatile boolean autoAck = true;
    /** The logged-in user, from the login answer. */
    public volatile String uid;

    public static WsDevice connect(URL base) throws Exception {
        WsDevice device = new WsDevice();
        URI ws = URI.create(base.toString().replaceFirst("^http", "ws")).resolve("ws");
        device.socket = HttpClient.newHttpClient().newWebSocketBuilder().buildAsync(ws, device).get(10, TimeUnit.SECONDS);
        return device;
    }

    /** Connects and says hello; fails unless it is answered. */
    public static WsDevice hello(URL base, String deviceType, String deviceId) throws Exception {
        WsDevice d = connect(base);
        d.sendHello(deviceType, deviceId);
        d.expect("hello");
        return d;
    }

    /** Sends a hello frame without waiting for its answer. */
    public void sendHello(String deviceType, String deviceId) {
        send("{\"v\":1,\"type\":\"hello\",\"deviceId\":\"" + deviceId + "\",\"deviceType\":\"" + deviceType
                + "\",\"protocolVersion\":1,\"clientVersion\":\"it\"}");
    }

    /** Connects, says hello and logs in with the token; fails unless both are answered. */
    public static WsDevice login(URL base, String token, String deviceType, String deviceId) throws Exception {
        WsDevice d = hello(base, deviceType, deviceId);
        d.sendLogin(token);
        d.expect("login");
        return d;
    }

    /** Asks to log in with the token; the answer (login, or an error) is the caller's to read. */
    public void sendLogin(String token) {
        send("{\"v\":1,\"type\":\"login\",\"token\":\"" + token + "\"}");
    }

    /**
     * A request frame of {@code type} (friendOp, groupOp, roomOp) with these fields, and its answer
     * ({@code type}Ret, skipping other frames), which must carry the request's seq.
     */
    public JsonObject op(String type, String fields) throws InterruptedException {
        String seq = sendOp(type, fields);
        JsonObject ret = await(type + "Ret");
        assertEquals(seq, ret.getString("seq"), ret.toString());
        return ret;
    }

    /**
     * Sends the request frame and drops the connection before its answer can come, as a phone that
     * loses its network right after a send: the server finds out when the socket fails.
     */
    public void sendOpAndDrop(String type, String fields) {
        sendOp(type, fields);
        abort();
    }

    private String sendOp(String type, String fields) {
        String seq = Integer.toString(ops.incrementAndGet());
        send("{\"v\":1,\"type\":\"" + type + "\",\"seq\":\"" + seq + "\"," + fields + "}");
        return seq;
    }

    /** A {@code friendOp} frame and its answer. */
    public JsonObject friendOp(String fields) throws InterruptedException {
        return op("friendOp", fields);
    }

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
        partial.append(data);
        if (last) {
            JsonObject frame = json(partial.toString());
            partial.setLength(0);
            switch (frame.getString("type", "")) {
                case "login" -> uid = frame.getString("uid");
                case "chatMsg" -> {
                    if (autoAck && frame.containsKey("group")) {
                        CompletableFuture.runAsync(() -> ackGroup(frame.getString("group"), frame.getInt("seq")));
                    } else if (autoAck) {
                        String peer = frame.getString("from").equals(uid) ? frame.getString("to") : frame.getString("from");
                        CompletableFuture.runAsync(() -> ack(peer, frame.getInt("seq")));
                    }
                }
                default -> { }
            }
            received.add(frame.getString("type", ""));
            history.add(frame);
            frames.add(frame);
        }
        ws.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
        closed.complete(statusCode);
        return null;
    }

    @Override
    public void onError(WebSocket ws, Throwable error) {
        closed.complete(-1);
    }

    /** One frame at a time: the WebSocket allows one send in flight, and acknowledgements go out from another thread. */
    public synchronized void send(String frame) {
        socket.sendText(frame, true).join();
    }

    /** A heartbeat (the suite's heartbeat timeout is 8 s: a test that keeps a device longer sends these). */
    public void heartbeat() {
        send("{\"v\":1,\"type\":\"heartbeat\"}");
    }

    /** This device holds every message of its conversation with {@code peer} up to {@code seq}. */
    public void ack(String peer, long seq) {
        try {
            send("{\"v\":1,\"type\":\"chatAck\",\"peer\":\"" + peer + "\",\"seq\":" + seq + "}");
        } catch (RuntimeException e) {
            // closed meanwhile: nothing to acknowledge on
        }
    }

    /** This device holds every message of group {@code group} up to {@code seq}. */
    public void ackGroup(String group, long seq) {
        try {
            send("{\"v\":1,\"type\":\"chatAck\",\"group\":\"" + group + "\",\"seq\":" + seq + "}");
        } catch (RuntimeException e) {
            // closed meanwhile: nothing to acknowledge on
        }
    }

    /**
     * Acknowledges as {@link #ack} and gives the server 100 ms to hold it (nothing answers an
     * acknowledgement), so that a frame sent next on another connection comes after it. Returns
     * when it was sent (nanoTime), for a test that must stay within the delivered hold.
     */
    public long ackHeld(String peer, long seq) throws InterruptedException {
        long sent = System.nanoTime();
        ack(peer, seq);
        Thread.sleep(100);
        return sent;
    }

    public JsonObject next() throws InterruptedException {
        JsonObject frame = frames.poll(20, TimeUnit.SECONDS);
        assertNotNull(frame, "no frame within 20 s");
        return frame;
    }

    public JsonObject expect(String type) throws InterruptedException {
        JsonObject frame = next();
        assertEquals(type, frame.getString("type"), frame.toString());
        return frame;
    }

    /** The next frame of this type, skipping others (e.g. presence frames between answers). */
    public JsonObject await(String type) throws InterruptedException {
        while (true) {
            JsonObject frame = next();
            if (frame.getString("type").equals(type)) {
                return frame;
            }
        }
    }

    /**
     * The next frame of each of these types, in whatever order they come, skipping others: a
     * request's answer and a notice its commit fired race to the same device.
     */
    public java.util.Map<String, JsonObject> awaitAll(String... types) throws InterruptedException {
        java.util.Map<String, JsonObject> got = new java.util.HashMap<>();
        java.util.Set<String> wanted = java.util.Set.of(types);
        while (got.size() < wanted.size()) {
            JsonObject frame = next();
            String type = frame.getString("type");
            if (wanted.contains(type)) {
                got.putIfAbsent(type, frame);
            }
        }
        return got;
    }

    /** Whether a frame of this type has come so far, skipped or not. */
    public boolean received(String type) {
        return received.contains(type);
    }

    public int closeCode() throws Exception {
        return closed.get(30, TimeUnit.SECONDS);
    }

    /** Drops the TCP connection without a close frame, as a phone losing its network does. */
    public void abort() {
        socket.abort();
    }

    /** Closes the connection; nothing if it is closed already (the server may have ended an idle one). */
    public synchronized void bye() {
        if (!socket.isOutputClosed()) {
            socket.sendClose(1000, "bye").join();
        }
    }
}
