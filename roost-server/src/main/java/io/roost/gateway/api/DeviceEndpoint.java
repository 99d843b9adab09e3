package io.roost.gateway.api;

import io.roost.platform.json.Jsonp;
import io.roost.chat.ChatSettings;
import io.roost.gateway.AckWheel;
import io.roost.gateway.ChatOps;
import io.roost.gateway.Connections;
import io.roost.gateway.Frames;
import io.roost.gateway.FriendOps;
import io.roost.gateway.GatewayMeters;
import io.roost.gateway.GroupOps;
import io.roost.gateway.GroupFanout;
import io.roost.gateway.LoginQueue;
import io.roost.gateway.MediaOps;
import io.roost.gateway.RoomOps;
import io.roost.identity.TokenService;
import io.roost.platform.api.RequestIds;
import io.roost.platform.ids.IdGenerator;
import io.roost.platform.cluster.Draining;
import io.roost.platform.problem.Unreachable;
import io.roost.presence.session.DeviceSessions;
import io.roost.presence.session.HeartbeatBuffer;
import io.roost.presence.session.SessionEnded;
import io.roost.presence.session.SessionSettings;
import io.roost.social.SocialSettings;
import io.undertow.websockets.jsr.UndertowSession;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.spi.CDI;
import jakarta.inject.Inject;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.websocket.CloseReason;
import jakarta.websocket.OnClose;
import jakarta.websocket.OnError;
import jakarta.websocket.OnMessage;
import jakarta.websocket.OnOpen;
import jakarta.websocket.Session;
import jakarta.websocket.server.ServerEndpoint;
import jakarta.websocket.server.ServerEndpointConfig;
import java.io.IOException;
import java.io.StringReader;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * A device's long connection: {@code hello} (device id and type), {@code login} (bearer token),
 * {@code heartbeat}, {@code logout}. One instance per connection. Protocol violations (not JSON,
 * frames out of order, a bad token) get an error frame and a close, never a server exception. A
 * frame whose work fails because the database or the broker is out of reach ({@link Unreachable})
 * gets error {@code server-busy} and a close with 1013 (try again later).
 */
@ServerEndpoint(value = "/ws", configurator = DeviceEndpoint.Factory.class)
public class DeviceEndpoint {

    private static final Logger LOG = Logger.getLogger(DeviceEndpoint.class.getName());
    /** Frames above the frame limit get an error and a close (1009); the container drops anything above MAX_BUFFERED. */
    static final int MIN_FRAME_LIMIT = 16 * 1024;
    static final int MAX_BUFFERED = 64 * 1024;
    /** Room in a chat send's frame around its body: the op, peer, sendId, type, quote and priority take a few hundred characters. */
    static final int SEND_ENVELOPE = 2 * 1024;

    /**
     * The most characters a frame may have: 16 KiB, or more where a chat send of the largest body
     * allowed needs it (a body's UTF-8 bytes are at least its characters), so that an oversized
     * body is answered {@code body-too-large} like over REST; never above what the container takes.
     */
    static int frameLimit(int maxBodyBytes) {
        return Math.min(MAX_BUFFERED, Math.max(MIN_FRAME_LIMIT, maxBodyBytes + SEND_ENVELOPE));
    }

    private enum Stage { NEW, HELLO, LOGGED_IN, CLOSED }

    /**
     * The services every connection uses, looked up once. The endpoint itself is a plain object made
     * by {@link Factory}: a CDI-managed instance per connection (ten injections, a creational
     * context) cost more CPU at a login burst than the login's own transaction. Dependent, not
     * application-scoped: the endpoint reads its fields, which a client proxy would not have.
     */
    @Dependent
    public static class Services {

        @Inject
        TokenService tokens;

        @Inject
        LoginQueue logins;

        @Inject
        DeviceSessions sessions;

        @Inject
        HeartbeatBuffer heartbeats;

        @Inject
        SessionSettings settings;

        @Inject
        Connections connections;

        @Inject
        IdGenerator ids;

        @Inject
        FriendOps friendOps;

        @Inject
        GroupOps groupOps;

        @Inject
        RoomOps roomOps;

        @Inject
        ChatOps chatOps;

        @Inject
        MediaOps mediaOps;

        @Inject
        AckWheel acks;

        @Inject
        GroupFanout groupFanout;

        @Inject
        ChatSettings chatSettings;

        @Inject
        SocialSettings socialSettings;

        @Inject
        Draining draining;

        @Inject
        GatewayMeters meters;

        @Inject
        @ConfigProperty(name = "roost.gateway.redirect-url")
        Optional<String> redirectUrl;
    }

    /** Makes each connection's endpoint with the application's {@link Services}. */
    public static class Factory extends ServerEndpointConfig.Configurator {

        private volatile Services services;

        @Override
        public <T> T getEndpointInstance(Class<T> type) {
            Services s = services;
            if (s == null) {
                s = CDI.current().select(Services.class).get();
                services = s;
            }
            return type.cast(new DeviceEndpoint(s));
        }
    }

    private final Services gw;
    private FrameLane lane;

    private volatile Stage stage = Stage.NEW;
    /** Where this connection's frames go out. */
    private Connections.Outbound out;
    private String connectionId;
    private String deviceType;
    private String deviceId;
    private String token;
    private long uid;
    /** Frames served so far: a frame's number in its log lines' request id. */
    private final java.util.concurrent.atomic.AtomicLong frames = new java.util.concurrent.atomic.AtomicLong();
    /** Live rooms this connection entered as a viewer: left when it closes. */
    private final Set<String> roomsEntered = ConcurrentHashMap.newKeySet();

    DeviceEndpoint(Services services) {
        this.gw = services;
    }

    @OnOpen
    public void open(Session session) {
        connectionId = Long.toString(gw.ids.nextId());
        SocketLimits.apply(session, gw.settings.heartbeatTimeout());
        lane = new FrameLane(worker(session));
        out = new Connections.Outbound(session, session instanceof UndertowSession undertow
                ? undertow.getWebSocketChannel().getIoThread() : Connections.DIRECT);
    }

    /**
     * The connection's XNIO worker pool, running the work as Undertow runs an endpoint method (the
     * application's class loader and naming context set up). Not the session's own executor: with
     * {@code dispatch-to-worker=false} (roost.cli) that is the connection's IO thread, and a login
     * waiting for its commit there stalls every connection of that thread and caps the logins in
     * flight at the number of IO threads.
     */
    private static Executor worker(Session session) {
        if (session instanceof UndertowSession undertow) {
            Executor pool = undertow.getWebSocketChannel().getWorker();
            return work -> pool.execute(() -> undertow.getContainer().invokeEndpointMethod(work));
        }
        return Runnable::run;
    }

    @OnMessage(maxMessageSize = MAX_BUFFERED)
    public void message(String text, Session session) {
        int limit = frameLimit(gw.chatSettings.maxBodyBytes());
        if (text.length() > limit) {
            send(Frames.error("frame-too-large", "A frame has at most " + limit + " characters."));
            close(CloseReason.CloseCodes.TOO_BIG, "frame-too-large");
            return;
        }
        JsonObject frame;
        try (JsonReader reader = Jsonp.PROVIDER.createReader(new StringReader(text))) {
            frame = reader.readObject();
        } catch (JsonException | IllegalStateException e) {
            violation("malformed-frame", "A frame is one JSON object.");
            return;
        }
        String type = frame.getString("type", "");
        if (!lane.offer(() -> serve(type, frame), waitsOnDatabase(type, frame))) {
            violation("too-many-frames", "At most " + FrameLane.MAX_WAITING + " frames wait for the ones before them to be answered;"
                    + " wait for answers before sending more.");
        }
    }

    /** Whether a frame's work waits on the database (it runs on a worker thread: {@link FrameLane}). */
    static boolean waitsOnDatabase(String type, JsonObject frame) {
        return switch (type) {
            case "hello", "heartbeat", "chatAck" -> false;
            case "chatOp" -> ChatOps.CONVERSATION_OPS.contains(frame.getString("op", ""))
                    || (frame.containsKey("group") && !"send".equals(frame.getString("op", ""))); // a group's ops read or write at once
            case "login", "logout", "friendOp", "groupOp", "roomOp", "mediaOp" -> true;
            default -> false; // unknown-type
        };
    }

    /** A frame's work, its log lines marked with the connection and the frame's number on it as their request id. */
    private void serve(String type, JsonObject frame) {
        RequestIds.enter(connectionId + "-" + frames.incrementAndGet());
        Runnable answered = out.begin(); // a drain ends the session only once this frame is answered
        boolean answersLater = false;
        try {
            answersLater = handle(type, frame, answered);
        } catch (Exception e) { // also a commit's checked HeuristicMixedException, which a @Transactional proxy lets through
            if (!Unreachable.isCause(e)) {
                throw e;
            }
            LOG.log(Level.FINE, "connection " + connectionId + ": " + type + " failed, a dependency is out of reach", e);
            busy("This cannot be done now (the server cannot reach its database or broker); connect again later.");
        } finally {
            if (!answersLater) {
                answered.run();
            }
            RequestIds.clear();
        }
    }

    /** Handles one frame; true if its answer comes later (a chatOp's), which then runs {@code answered}. */
    private boolean handle(String type, JsonObject frame, Runnable answered) {
        if (out.ending() && !type.equals("heartbeat") && !type.equals("chatAck")) {
            // its session ends in a moment: the device sends this again once it is connected to another node
            send(Frames.error("server-shutdown", "This node is shutting down: connect again and send this again there."));
            return false;
        }
        switch (type) {
            case "hello" -> hello(frame);
            case "login" -> login(frame);
            case "heartbeat" -> {
                if (requireLogin()) {
                    gw.meters.heartbeat();
                    gw.heartbeats.mark(connectionId);
                    send(Frames.text(Frames.frame("heartbeat")));
                }
            }
            case "friendOp" -> {
                if (requireLogin()) {
                    send(gw.friendOps.handle(uid, frame));
                }
            }
            case "groupOp" -> {
                if (requireLogin()) {
                    send(gw.groupOps.handle(uid, frame));
                }
            }
            case "roomOp" -> {
                if (requireLogin()) {
                    send(gw.roomOps.handle(uid, frame, roomsEntered));
                }
            }
            case "chatOp" -> {
                if (requireLogin()) {
                    gw.chatOps.handle(uid, deviceType, deviceId, connectionId, frame, answer -> {
                        send(answer);
                        answered.run();
                    });
                    return true;
                }
            }
            case "mediaOp" -> {
                if (requireLogin()) {
                    send(gw.mediaOps.handle(uid, frame, frameLimit(gw.chatSettings.maxBodyBytes())));
                }
            }
            case "chatAck" -> {
                if (requireLogin()) {
                    String refused = gw.chatOps.ack(uid, connectionId, frame);
                    if (refused != null) {
                        send(refused);
                    }
                }
            }
            case "logout" -> {
                if (requireLogin()) {
                    logout(frame);
                }
            }
            default -> send(Frames.error("unknown-type", "Unknown frame type '" + type + "'."));
        }
        return false;
    }

    /** While its node drains, a connection gets no session: a kick saying to connect again (to another node) and a close 1012. */
    private boolean refusedWhileDraining() {
        if (!gw.draining.isDraining()) {
            return false;
        }
        send(Frames.kick(SessionEnded.SERVER_SHUTDOWN));
        close(CloseReason.CloseCodes.SERVICE_RESTART, SessionEnded.SERVER_SHUTDOWN);
        return true;
    }

    private void hello(JsonObject frame) {
        if (stage != Stage.NEW) {
            violation("unexpected-hello", "hello comes once, first.");
            return;
        }
        if (refusedWhileDraining()) {
            return;
        }
        if (frame.getInt("protocolVersion", Frames.VERSION) != Frames.VERSION) {
            violation("unsupported-protocol", "This server speaks protocol version " + Frames.VERSION + ".");
            return;
        }
        String type = frame.getString("deviceType", "").toLowerCase(Locale.ROOT);
        if (!gw.settings.deviceTypes().contains(type)) {
            violation("unknown-device-type", "deviceType must be one of " + gw.settings.deviceTypes() + ".");
            return;
        }
        String device = frame.getString("deviceId", "");
        if (device.isBlank() || device.length() > 128) {
            violation("invalid-device-id", "deviceId is required (at most 128 characters).");
            return;
        }
        deviceType = type;
        deviceId = device;
        stage = Stage.HELLO;
        var answer = Frames.frame("hello").add("serverVersion", Frames.SERVER_VERSION).add("protocolVersion", Frames.VERSION)
                .add("heartbeatIntervalSeconds", gw.settings.heartbeatInterval().toSeconds())
                .add("socialMode", gw.socialSettings.modeName());
        // The server may send the device to another node (load balancing); it reconnects there.
        gw.redirectUrl.filter(u -> !u.isBlank()).ifPresent(u -> answer.add("redirect", u));
        send(Frames.text(answer));
    }

    private void login(JsonObject frame) {
        if (stage != Stage.HELLO) {
            violation(stage == Stage.NEW ? "hello-first" : "already-logged-in",
                    stage == Stage.NEW ? "Send hello before login." : "This connection is logged in already.");
            return;
        }
        if (refusedWhileDraining()) {
            return;
        }
        String presented = frame.getString("token", "");
        // Register first: a kick for this very connection, or a push, may follow the commit at once;
        // what is sent to it waits until the answer below has gone out.
        out.hold();
        gw.connections.add(connectionId, out);
        LoginQueue.Outcome outcome;
        try {
            outcome = gw.logins.login(presented, deviceType, deviceId, connectionId);
        } catch (RuntimeException e) {
            gw.connections.remove(connectionId);
            out.release(null);
            throw e;
        }
        if (outcome.result() != LoginQueue.Result.ACCEPTED) {
            gw.connections.remove(connectionId);
            out.release(null);
            switch (outcome.result()) {
                case INVALID_TOKEN -> violation("invalid-token",
                        "The token is unknown, expired, revoked, or its account is disabled.");
                case DEVICE_MISMATCH -> violation("token-device-mismatch", "This token was issued to another device.");
                case REFUSED -> violation("login-refused",
                        "Another " + deviceType + " device is logged in and this type refuses a second.");
                default -> busy("The login could not be completed now; connect again later.");
            }
            return;
        }
        gw.meters.login(deviceType);
        try {
            // the user's groups learn of this connection before the answer: its catch-up follows the answer
            gw.groupFanout.online(connectionId, outcome.uid());
        } catch (RuntimeException e) {
            gw.connections.remove(connectionId);
            out.release(null);
            gw.sessions.logout(connectionId);
            throw e;
        }
        synchronized (this) {
            if (stage == Stage.CLOSED) {
                // The socket closed while the login was in flight: nobody is there, so the session ends now.
                gw.connections.remove(connectionId);
                out.release(null);
                gw.sessions.logout(connectionId);
                return;
            }
            token = presented;
            uid = outcome.uid();
            stage = Stage.LOGGED_IN;
        }
        gw.connections.loggedIn(connectionId, deviceType);
        out.release(Frames.text(Frames.frame("login").add("uid", Long.toString(uid)).add("connectionId", connectionId)
                .add("epoch", outcome.epoch())));
    }

    private void logout(JsonObject frame) {
        gw.sessions.logout(connectionId);
        gw.connections.remove(connectionId);
        gw.acks.closed(connectionId);
        if (frame.getBoolean("revoke", false)) {
            gw.tokens.revoke(token);
        }
        stage = Stage.CLOSED;
        send(Frames.text(Frames.frame("logout")));
        close(CloseReason.CloseCodes.NORMAL_CLOSURE, "logout");
    }

    private boolean requireLogin() {
        if (stage == Stage.LOGGED_IN) {
            return true;
        }
        violation("login-first", "Log in before this frame.");
        return false;
    }

    @OnClose
    public void closed(Session session, CloseReason reason) {
        lane.close(this::closed); // behind a login in flight, and off the IO thread (the logout writes)
    }

    private void closed() {
        boolean loggedIn;
        synchronized (this) { // against a login in flight (it ends the session itself when it sees CLOSED)
            loggedIn = stage == Stage.LOGGED_IN;
            stage = Stage.CLOSED;
        }
        if (loggedIn) {
            gw.roomOps.connectionClosed(uid, roomsEntered);
            try {
                // the route goes first: a push that meets the connection still here until then is
                // drained to the offline path below, and the login log says logout, not unreachable
                gw.sessions.logout(connectionId); // removes the route only if this connection still holds it
            } catch (Exception e) {
                // Nobody to answer; the heartbeat timeout ends the session instead.
                LOG.log(Unreachable.isCause(e) ? Level.FINE : Level.WARNING,
                        "connection " + connectionId + " closed; its session stays until the heartbeat timeout", e);
            } finally {
                gw.connections.remove(connectionId);
                gw.acks.closed(connectionId);
            }
        }
    }

    /** Try again later: error server-busy and a close with 1013. */
    private void busy(String message) {
        send(Frames.error("server-busy", message));
        close(CloseReason.CloseCodes.TRY_AGAIN_LATER, "server-busy");
    }

    @OnError
    public void error(Session session, Throwable failure) {
        LOG.log(Level.FINE, "connection " + connectionId + ": " + failure, failure);
    }

    private void violation(String code, String message) {
        send(Frames.error(code, message));
        close(CloseReason.CloseCodes.VIOLATED_POLICY, code);
    }

    private void send(String text) {
        out.send(text);
    }

    private void close(CloseReason.CloseCode code, String reason) {
        out.close(code, reason);
    }
}
