package io.roost.client.device;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A device on Roost's WebSocket protocol (docs/protocol.md): it logs in with a token, keeps the
 * session alive with heartbeats at the interval the server announces, reconnects with jittered
 * exponential backoff after anything but a final kick or a refused login, and after each login
 * catches up (the conversations changed since the stored sync version, then each one's messages
 * after the seq it holds), so that the listener gets every message once and in seq order per
 * conversation across reconnects. Sends carry a sendId of the device's own and are sent again
 * with it until answered, across reconnects too. Thread-safe; it owns no thread: I/O on the
 * shared {@link HttpClient}, timers on a shared scheduler, listener calls on the executor.
 */
public final class RoostDevice implements AutoCloseable {

    public enum State { NEW, CONNECTING, ONLINE, WAITING, STOPPING, STOPPED }

    /** Error codes after which coming back would be refused again: the device stops. */
    private static final Set<String> FINAL_ERRORS = Set.of("invalid-token", "token-device-mismatch", "login-refused",
            "unsupported-protocol", "unknown-device-type", "invalid-device-id", "hello-first", "already-logged-in",
            "unexpected-hello", "login-first", "malformed-frame", "frame-too-large");
    /** Error frames after which the connection stays open: nothing to do with the session. */
    private static final Set<String> OPEN_ERRORS = Set.of("unknown-type", "invalid-ack");
    /** An op's failure that says "not now": a request the device sends again is sent again later. */
    private static final Set<String> BUSY = Set.of("server-busy", "service-unavailable", "internal-error");

    private final URI server;
    private final String deviceType;
    private final String deviceId;
    private final String token;
    private final HttpClient http;
    private final Executor executor;
    private final ScheduledExecutorService scheduler;
    private final SyncStore store;
    private final DeviceListener listener;
    private final Backoff backoff;
    private final Duration requestTimeout;
    private final Duration heartbeatAtMost;
    private final DeviceMedia media;

    private final Delivery delivery;
    private final String sendIdPrefix = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final AtomicLong sendIds = new AtomicLong();
    private final AtomicLong requestSeqs = new AtomicLong();
    private final CompletableFuture<Session> firstLogin = new CompletableFuture<>();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();

    // guarded by this
    private State state = State.NEW;
    private Link link;
    private URI wsUri;
    private int attempt;
    private Session session;
    private int heartbeatSeconds;
    private String socialMode;
    private ScheduledFuture<?> heartbeat;
    private String lastError;
    private String lastErrorMessage;
    private Kick lastKick;
    private final TreeMap<Long, Pending> pending = new TreeMap<>();

    /** A request awaiting its answer. {@code again}: sent again on the next connection if this one ends first. */
    private static final class Pending {
        final long seq;
        final ObjectNode frame;
        final boolean again;
        final CompletableFuture<ObjectNode> answer = new CompletableFuture<>();
        Link sentOn;
        ScheduledFuture<?> timer;
        int busyRetries;

        Pending(long seq, ObjectNode frame, boolean again) {
            this.seq = seq;
            this.frame = frame;
            this.again = again;
        }
    }

    private RoostDevice(Builder b) {
        server = b.server;
        deviceType = b.deviceType;
        deviceId = b.deviceId;
        token = b.token;
        http = b.http != null ? b.http : HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        executor = b.executor != null ? b.executor : http.executor().orElse(ForkJoinPool.commonPool());
        scheduler = b.scheduler != null ? b.scheduler : SharedTimer.get();
        store = b.store != null ? b.store : SyncStore.inMemory();
        listener = b.listener != null ? b.listener : new DeviceListener() { };
        backoff = b.backoff;
        requestTimeout = b.requestTimeout;
        heartbeatAtMost = b.heartbeatAtMost;
        delivery = new Delivery(new Delivery.Wire() {
            @Override
            public CompletableFuture<ObjectNode> submit(ObjectNode frame, boolean again) {
                return RoostDevice.this.submit(frame, again);
            }

            @Override
            public void sendIfOnline(ObjectNode frame) {
                Link l;
                synchronized (RoostDevice.this) {
                    l = state == State.ONLINE ? link : null;
                }
                if (l != null) {
                    l.send(frame);
                }
            }
        }, store, listener, executor, scheduler, b.gapWait);
        wsUri = websocketUri(server);
        media = new DeviceMedia(server, token, http, executor);
    }

    /** A device of the server at {@code server} (its HTTP address, e.g. {@code http://localhost:8080/}). */
    public static Builder builder(URI server) {
        return new Builder(server);
    }

    static URI websocketUri(URI server) {
        String base = server.toString();
        if (!base.endsWith("/")) {
            base += "/";
        }
        return URI.create(base.replaceFirst("^http", "ws")).resolve("ws");
    }

    // ---- the public face ----

    /** Connects and logs in; the future completes at the first login, or fails if the device stops before it. */
    public CompletableFuture<Session> start() {
        synchronized (this) {
            if (state == State.NEW) {
                connect();
            }
        }
        return firstLogin;
    }

    public synchronized State state() {
        return state;
    }

    /** The live session, or null between connections. */
    public synchronized Session session() {
        return state == State.ONLINE ? session : null;
    }

    /** Completes when the device has stopped for good (closed, logged out, a final kick or refusal). */
    public CompletableFuture<Void> stopped() {
        return stopped;
    }

    public String deviceType() {
        return deviceType;
    }

    public String deviceId() {
        return deviceId;
    }

    /** Uploads and downloads over REST with the device's token. */
    public DeviceMedia media() {
        return media;
    }

    /** The highest seq of {@code c} handed to the listener without a gap. */
    public long held(Conversation c) {
        return delivery.held(c);
    }

    /** A text message. */
    public CompletableFuture<Sent> sendText(Conversation c, String text) {
        return send(Outgoing.text(c, text));
    }

    /**
     * Sends a message; the future completes with its answer, after the server committed it. Until
     * then the device sends it again (the same sendId: stored once) on every new connection, and
     * later when the server answers that it is busy. It fails on a refusal ({@link RoostFrameException}
     * with the documented code, e.g. {@code blocked}, {@code not-member}) or when the device stops.
     */
    public CompletableFuture<Sent> send(Outgoing o) {
        String sendId = o.sendId() != null ? o.sendId() : sendIdPrefix + "-" + sendIds.incrementAndGet();
        ObjectNode f = op("chatOp", "send");
        f.put(o.conversation().field(), o.conversation().id()).put("sendId", sendId).put("msgType", o.msgType());
        f.set("body", o.body());
        if (o.quote() != null) {
            f.put("quote", o.quote());
        }
        if (o.priority() != null) {
            f.put("priority", o.priority());
        }
        if (!o.mentions().isEmpty()) {
            o.mentions().forEach(f.putArray("mentions")::add);
        }
        if (o.mentionAll()) {
            f.put("mentionAll", true);
        }
        return submit(f, true).thenApply(ret -> {
            long seq = ret.path("msgSeq").asLong();
            delivery.sent(o.conversation(), seq);
            delivery.receipt(Receipt.Kind.DELIVERED, o.conversation(), ret.get("peerDeliveredSeq"));
            return new Sent(o.conversation(), sendId, ret.path("msgId").asText(), seq,
                    ret.has("sentAt") ? Instant.ofEpochMilli(ret.get("sentAt").asLong()) : null, ret.path("resent").asBoolean());
        });
    }

    /** A read report: the user read {@code c} up to {@code readSeq} (all its devices); answers {@code readSeq}, {@code unread}. Sent again until answered. */
    public CompletableFuture<ObjectNode> read(Conversation c, long readSeq) {
        ObjectNode f = op("chatOp", "read").put(c.field(), c.id()).put("readSeq", readSeq);
        return submit(f, true);
    }

    /** A group member's own state ({@code lastSeq}, {@code readSeq}, {@code unread}, …): the answer's {@code state}. */
    public CompletableFuture<ObjectNode> groupState(String groupId) {
        return submit(op("chatOp", "state").put("group", groupId), true)
                .thenApply(ret -> (ObjectNode) ret.get("state"));
    }

    /**
     * Any operation: {@code type} {@code friendOp}, {@code groupOp}, {@code roomOp}, {@code chatOp}
     * or {@code mediaOp}, with {@code fields} besides {@code op} and {@code seq}. The future has
     * the {@code …Ret} answer on {@code result: ok}; fails with the answer's code otherwise, with
     * {@code connection-lost} if the connection ends first (an op is not sent twice unasked), or
     * with a {@link TimeoutException} after the request timeout.
     */
    public CompletableFuture<ObjectNode> request(String type, String op, ObjectNode fields) {
        ObjectNode f = op(type, op);
        if (fields != null) {
            fields.fields().forEachRemaining(e -> f.set(e.getKey(), e.getValue()));
        }
        return submit(f, false);
    }

    /** Fields for {@link #request}: an empty object to put into. */
    public static ObjectNode fields() {
        return Frames.MAPPER.createObjectNode();
    }

    /** Ends the session ({@code revoke}: the token too) and stops; completes when the server has closed. */
    public CompletableFuture<Void> logout(boolean revoke) {
        Link l;
        synchronized (this) {
            if (state == State.STOPPED) {
                return stopped;
            }
            l = state == State.ONLINE ? link : null;
            state = State.STOPPING;
            cancelHeartbeat();
        }
        if (l == null) {
            stop(null);
        } else {
            l.send(Frames.frame("logout").put("revoke", revoke));
            scheduler.schedule(() -> stop(null), requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        return stopped;
    }

    /** Stops without logging out: the connection closes, the session ends on the server; nothing reconnects. */
    @Override
    public void close() {
        stop(null);
    }

    /**
     * Drops the connection without a close frame, as a network loss does: the device reconnects
     * (after its backoff) and catches up.
     */
    public void dropConnection() {
        Link l;
        synchronized (this) {
            l = link;
        }
        if (l != null) {
            l.abort();
        }
    }

    // ---- connections ----

    private void connect() { // holds this
        state = State.CONNECTING;
        lastError = null;
        lastErrorMessage = null;
        lastKick = null;
        Link l = new Link(new Link.Events() {
            @Override
            public void opened(Link link) {
                link.send(Frames.frame("hello").put("deviceId", deviceId).put("deviceType", deviceType).put("protocolVersion", 1));
            }

            @Override
            public void received(Link link, String text) {
                RoostDevice.this.received(link, text);
            }

            @Override
            public void ended(Link link, int code, String reason) {
                RoostDevice.this.ended(link, code, reason);
            }
        });
        link = l;
        http.newWebSocketBuilder().connectTimeout(requestTimeout).buildAsync(wsUri, l)
                .whenComplete((ws, e) -> {
                    if (e != null) {
                        ended(l, -1, String.valueOf(e));
                    }
                });
    }

    private void received(Link l, String text) {
        ObjectNode f;
        try {
            f = Frames.decode(text);
        } catch (IllegalArgumentException e) {
            return; // not one of the server's frames: nothing to act on
        }
        String type = f.get("type").asText();
        synchronized (this) {
            if (l != link) {
                return;
            }
        }
        switch (type) {
            case "hello" -> hello(l, f);
            case "login" -> loggedIn(l, f);
            case "heartbeat", "logout" -> { }
            case "chatMsg" -> delivery.pushed(f, uid());
            case "chatReceipt" -> delivery.receipt("read".equals(f.path("kind").asText()) ? Receipt.Kind.READ : Receipt.Kind.DELIVERED,
                    Conversation.user(f.path("peer").asText()), f.get("seq"));
            case "presence" -> delivery.presence(f);
            case "kick" -> {
                Kick k = Kick.of(f.path("reason").asText());
                synchronized (this) {
                    lastKick = k;
                }
                delivery.call(() -> listener.onKick(k));
            }
            case "error" -> {
                String code = f.path("code").asText();
                if (!OPEN_ERRORS.contains(code)) {
                    synchronized (this) {
                        lastError = code;
                        lastErrorMessage = f.path("message").asText();
                    }
                }
                RoostFrameException error = new RoostFrameException(code, f.path("message").asText());
                delivery.call(() -> listener.onError(error));
            }
            default -> {
                if (type.endsWith("Ret") && Frames.requestSeq(f) != null) {
                    answered(f);
                } else {
                    delivery.call(() -> listener.onNotice(new Notice(type, f)));
                }
            }
        }
    }

    private void hello(Link l, ObjectNode f) {
        String redirect = f.path("redirect").asText(null);
        synchronized (this) {
            int announced = Math.max(1, f.path("heartbeatIntervalSeconds").asInt(60));
            heartbeatSeconds = heartbeatAtMost == null ? announced : (int) Math.max(1, Math.min(announced, heartbeatAtMost.toSeconds()));
            socialMode = f.path("socialMode").asText(null);
            if (redirect != null && !redirect.isEmpty()) {
                wsUri = URI.create(redirect);
                link = null;
                l.close();
                connect();
                return;
            }
        }
        l.send(Frames.frame("login").put("token", token));
    }

    private void loggedIn(Link l, ObjectNode f) {
        Session s;
        List<Pending> resend;
        synchronized (this) {
            if (state != State.CONNECTING) {
                return;
            }
            s = new Session(f.path("uid").asText(), f.path("connectionId").asText(), f.path("epoch").asLong(), heartbeatSeconds,
                    socialMode);
            session = s;
            state = State.ONLINE;
            attempt = 0;
            long every = heartbeatSeconds * 1000L;
            heartbeat = scheduler.scheduleAtFixedRate(() -> heartbeat(l), every, every, TimeUnit.MILLISECONDS);
            resend = new ArrayList<>(pending.values());
            resend.forEach(p -> p.sentOn = l);
        }
        resend.forEach(p -> l.send(p.frame));
        delivery.call(() -> listener.onOnline(s));
        executor.execute(() -> firstLogin.complete(s));
        delivery.catchUp();
    }

    private void heartbeat(Link l) {
        synchronized (this) {
            if (l != link || state != State.ONLINE) {
                return;
            }
        }
        // the server answers every heartbeat: silence for two intervals is a dead connection
        if (System.nanoTime() - l.lastHeardNanos > TimeUnit.SECONDS.toNanos(2L * heartbeatSeconds + 5)) {
            l.abort();
        } else {
            l.send(Frames.frame("heartbeat"));
        }
    }

    private void ended(Link l, int code, String reason) {
        List<Pending> lost = new ArrayList<>();
        RoostFrameException cause;
        boolean stop;
        boolean wasUp;
        synchronized (this) {
            if (l != link) {
                return;
            }
            link = null;
            cancelHeartbeat();
            wasUp = state == State.ONLINE;
            String error = lastError;
            cause = lastKick != null && !lastKick.reconnecting()
                    ? new RoostFrameException(lastKick.reason(), "kicked")
                    : error != null ? new RoostFrameException(error, lastErrorMessage) : null;
            stop = state == State.STOPPING || (lastKick != null && !lastKick.reconnecting())
                    || (error != null && FINAL_ERRORS.contains(error));
            RoostFrameException lostCause = cause != null && !stop ? cause
                    : new RoostFrameException(RoostFrameException.CONNECTION_LOST, "the connection ended (" + code + ") before the answer");
            for (Pending p : new ArrayList<>(pending.values())) {
                if (!p.again && p.sentOn == l) {
                    pending.remove(p.seq);
                    lost.add(p);
                }
            }
            delivery.connectionEnded();
            if (!stop) {
                state = State.WAITING;
                Duration wait = backoff.delay(attempt++);
                scheduler.schedule(this::reconnect, wait.toMillis(), TimeUnit.MILLISECONDS);
            }
            RoostFrameException failure = lostCause;
            lost.forEach(p -> fail(p, failure));
        }
        if (wasUp) {
            delivery.call(() -> listener.onOffline(code, reason));
        }
        if (stop) {
            stop(state() == State.STOPPING && cause == null ? null : cause);
        }
    }

    private void reconnect() {
        synchronized (this) {
            if (state == State.WAITING) {
                connect();
            }
        }
    }

    private void stop(Throwable cause) {
        Link l;
        List<Pending> all;
        synchronized (this) {
            if (state == State.STOPPED) {
                return;
            }
            state = State.STOPPED;
            cancelHeartbeat();
            l = link;
            link = null;
            all = new ArrayList<>(pending.values());
            pending.clear();
        }
        if (l != null) {
            l.close();
        }
        RoostFrameException stoppedCause = cause instanceof RoostFrameException r ? r
                : new RoostFrameException(RoostFrameException.DEVICE_STOPPED, "the device stopped before the answer");
        all.forEach(p -> fail(p, stoppedCause));
        executor.execute(() -> firstLogin.completeExceptionally(stoppedCause));
        delivery.call(() -> {
            listener.onStopped(cause);
            stopped.complete(null);
        });
    }

    private synchronized String uid() {
        return session == null ? null : session.uid();
    }

    private void cancelHeartbeat() { // holds this
        if (heartbeat != null) {
            heartbeat.cancel(false);
            heartbeat = null;
        }
    }

    // ---- requests and answers ----

    private ObjectNode op(String type, String op) {
        return Frames.frame(type).put("op", op);
    }

    private CompletableFuture<ObjectNode> submit(ObjectNode frame, boolean again) {
        long seq = requestSeqs.incrementAndGet();
        frame.put("seq", Long.toString(seq));
        Pending p = new Pending(seq, frame, again);
        Link l;
        synchronized (this) {
            if (state == State.STOPPED || state == State.STOPPING) {
                p.answer.completeExceptionally(new RoostFrameException(RoostFrameException.DEVICE_STOPPED, "the device is stopped"));
                return p.answer;
            }
            pending.put(seq, p);
            l = state == State.ONLINE ? link : null;
            p.sentOn = l;
            p.timer = scheduler.schedule(() -> timedOut(p), requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        if (l != null) {
            l.send(frame);
        }
        return p.answer;
    }

    /** No answer within the request timeout: an op fails; a send or read is sent again (on the connection there is now, if any). */
    private void timedOut(Pending p) {
        Link l;
        synchronized (this) {
            if (pending.get(p.seq) != p) {
                return;
            }
            if (!p.again) {
                pending.remove(p.seq);
                executor.execute(() -> p.answer.completeExceptionally(
                        new TimeoutException("no answer to " + p.frame.path("type").asText() + " " + p.frame.path("op").asText()
                                + " within " + requestTimeout)));
                return;
            }
            l = state == State.ONLINE ? link : null;
            p.sentOn = l;
            p.timer = scheduler.schedule(() -> timedOut(p), requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        if (l != null) {
            l.send(p.frame);
        }
    }

    private void answered(ObjectNode ret) {
        long seq;
        try {
            seq = Long.parseLong(Frames.requestSeq(ret));
        } catch (NumberFormatException e) {
            return;
        }
        Pending p;
        synchronized (this) {
            p = pending.get(seq);
            if (p == null) {
                return; // answered already (an answer to an earlier attempt), or timed out
            }
            if (!Frames.ok(ret) && p.again && BUSY.contains(ret.path("code").asText()) && state != State.STOPPING) {
                // not now: the same frame again after a backoff, still pending
                p.timer.cancel(false);
                long wait = backoff.delay(p.busyRetries++).toMillis();
                p.sentOn = null;
                p.timer = scheduler.schedule(() -> timedOut(p), wait, TimeUnit.MILLISECONDS);
                return;
            }
            pending.remove(seq);
            p.timer.cancel(false);
        }
        if (Frames.ok(ret)) {
            executor.execute(() -> p.answer.complete(ret));
        } else {
            fail(p, Frames.failure(ret));
        }
    }

    private void fail(Pending p, Throwable cause) {
        if (p.timer != null) {
            p.timer.cancel(false);
        }
        executor.execute(() -> p.answer.completeExceptionally(cause));
    }

    /** How a device is made: the server, the device's identity and token, and what it shares with other devices. */
    public static final class Builder {
        private final URI server;
        private String deviceType = "web";
        private String deviceId;
        private String token;
        private HttpClient http;
        private Executor executor;
        private ScheduledExecutorService scheduler;
        private SyncStore store;
        private DeviceListener listener;
        private Backoff backoff = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(30));
        private Duration requestTimeout = Duration.ofSeconds(30);
        private Duration gapWait = Duration.ofSeconds(1);
        private Duration heartbeatAtMost;

        private Builder(URI server) {
            this.server = Objects.requireNonNull(server, "server");
        }

        /** One of the server's device types ({@code android}, {@code ios}, {@code web}, {@code desktop}, {@code pad} by default); default {@code web}. */
        public Builder deviceType(String type) {
            this.deviceType = type;
            return this;
        }

        /** The device's stable id, 1–128 characters; a device token must have been issued for this type and id. */
        public Builder deviceId(String id) {
            this.deviceId = id;
            return this;
        }

        /** The bearer token the device logs in with (a device token from {@code POST /api/v1/auth/login}, or an unbound one). */
        public Builder token(String token) {
            this.token = token;
            return this;
        }

        /** The HttpClient for the WebSocket and the media calls: share one among many devices. Default: one of its own. */
        public Builder httpClient(HttpClient client) {
            this.http = client;
            return this;
        }

        /** Where listener calls and completions run. Default: the HttpClient's executor, or the common pool. */
        public Builder executor(Executor executor) {
            this.executor = executor;
            return this;
        }

        /** The timers (heartbeats, backoff, timeouts; each only hands work on). Default: one daemon thread shared by every device. */
        public Builder scheduler(ScheduledExecutorService scheduler) {
            this.scheduler = scheduler;
            return this;
        }

        /** Where the held seqs and the sync version live. Default: {@link SyncStore#inMemory()}. */
        public Builder store(SyncStore store) {
            this.store = store;
            return this;
        }

        public Builder listener(DeviceListener listener) {
            this.listener = listener;
            return this;
        }

        /** The wait between reconnect attempts. Default: 0.5 s doubling up to 30 s, jittered. */
        public Builder backoff(Duration initial, Duration max) {
            this.backoff = new Backoff(initial, max);
            return this;
        }

        /** How long an op waits for its answer (a send or a read is sent again after it). Default 30 s. */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = timeout;
            return this;
        }

        /** How long a push past a gap waits for the missing ones before the device catches up. Default 1 s. */
        public Builder gapWait(Duration wait) {
            this.gapWait = wait;
            return this;
        }

        /**
         * Heartbeats at least this often (whole seconds), where the server's announced interval is
         * longer: a network that drops idle connections sooner, or a server whose timeout is set
         * below three intervals. Default: the server's interval.
         */
        public Builder heartbeatAtMost(Duration interval) {
            this.heartbeatAtMost = interval;
            return this;
        }

        public RoostDevice build() {
            Objects.requireNonNull(deviceId, "deviceId");
            Objects.requireNonNull(token, "token");
            return new RoostDevice(this);
        }
    }
}
