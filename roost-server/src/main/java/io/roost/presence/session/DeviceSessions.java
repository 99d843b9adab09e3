package io.roost.presence.session;

import io.roost.identity.AccountDeactivated;
import io.roost.platform.json.Jsonp;
import io.roost.platform.config.NodeIdentity;
import io.roost.platform.ids.IdGenerator;
import io.roost.platform.outbox.OutboxPublisher;
import io.roost.presence.store.LoginLogStore;
import io.roost.presence.store.RouteStore;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Device sessions: the presence module's public face for logins over long connections. The route
 * row is the truth; kicking a displaced connection is an event after commit (this node) or a
 * RocketMQ message through the outbox (the node that holds it).
 */
@ApplicationScoped
public class DeviceSessions {

    public static final String KICK_TOPIC = "roost-session-kicks";
    public static final String LOGIN_EVENTS_TOPIC = "roost-login-events";

    /** The outcome of a login: accepted, or refused because the slot is held (refuse-new). */
    public record Login(boolean accepted, long epoch, Optional<DeviceRoute> displaced) {
    }

    @EJB
    RouteStore routes;

    @EJB
    LoginLogStore loginLog;

    @Inject
    NodeIdentity node;

    @Inject
    IdGenerator ids;

    @Inject
    SessionSettings settings;

    @Inject
    OutboxPublisher outbox;

    @Inject
    Event<SessionEnded> ended;

    @Inject
    Event<PresenceChanged> presenceChanged;

    @Inject
    Event<SessionsLost> sessionsLost;

    /** A device's login on one of this node's connections. */
    public record LoginRequest(long uid, String deviceType, String deviceId, String connectionId) {
    }

    /**
     * Many logins in one transaction (the gateway batches the logins that arrive together): the
     * outcomes in the order of {@code requests}, each as if the logins ran one after another in
     * that order — a later login of the same (uid, deviceType) replaces or is refused by an
     * earlier one of the same batch.
     */
    @Transactional
    public List<Login> loginAll(List<LoginRequest> requests) {
        List<DeviceRoute> wanted = new ArrayList<>();
        List<SessionSettings.Policy> policies = new ArrayList<>();
        for (LoginRequest r : requests) {
            SessionSettings.Policy policy = settings.policy(r.deviceType());
            String sessionKey = policy == SessionSettings.Policy.ALLOW_MANY ? r.connectionId() : "";
            wanted.add(new DeviceRoute(r.uid(), r.deviceType(), sessionKey, node.nodeId(), r.connectionId(), r.deviceId(),
                    ids.nextId(), null, null));
            policies.add(policy);
        }
        List<Optional<DeviceRoute>> holders = routes.claimAll(wanted,
                policies.stream().map(p -> p == SessionSettings.Policy.KICK_OLD).toList());
        List<OutboxPublisher.Message> journal = new ArrayList<>();
        List<Login> outcomes = new ArrayList<>();
        List<Long> loggedIn = new ArrayList<>();
        for (int i = 0; i < requests.size(); i++) {
            DeviceRoute route = wanted.get(i);
            Optional<DeviceRoute> holder = holders.get(i);
            if (holder.isPresent() && policies.get(i) == SessionSettings.Policy.REFUSE_NEW) {
                outcomes.add(new Login(false, route.epoch(), Optional.empty()));
                continue;
            }
            holder.filter(h -> !h.connectionId().equals(route.connectionId()))
                    .ifPresent(h -> end(h, SessionEnded.REPLACED, journal));
            journal.add(logEntry("login", route, null));
            loggedIn.add(route.uid());
            outcomes.add(new Login(true, route.epoch(), holder));
        }
        outbox.publishAll(journal);
        announce(loggedIn);
        return outcomes;
    }

    /** The connection ends its own session (logout or close). */
    @Transactional
    public Optional<DeviceRoute> logout(String connectionId) {
        Optional<DeviceRoute> released = routes.release(connectionId);
        released.ifPresent(r -> {
            outbox.publishAll(List.of(logEntry("logout", r, null)));
            announce(List.of(r.uid()));
        });
        return released;
    }

    /**
     * A push found that this node has no connection {@code connectionId} although the route says
     * it does (the connection died and its close was never processed): the route goes now, logged
     * as {@code unreachable}, instead of lingering until the heartbeat sweep. Empty if the route
     * was gone already.
     */
    @Transactional
    public Optional<DeviceRoute> unreachable(String connectionId) {
        return endConnection(connectionId, SessionEnded.UNREACHABLE);
    }

    /**
     * The device on {@code connectionId} did not acknowledge pushed messages: its session ends
     * ({@code ack_timeout} in the login log) and the connection is kicked and closed.
     */
    @Transactional
    public Optional<DeviceRoute> unacknowledged(String connectionId) {
        return endConnection(connectionId, SessionEnded.ACK_TIMEOUT);
    }

    /**
     * The connection's node drains: its session ends ({@code server_shutdown}) and the connection is
     * kicked and closed, so that the device connects again to another node.
     */
    @Transactional
    public Optional<DeviceRoute> drained(String connectionId) {
        return endConnection(connectionId, SessionEnded.SERVER_SHUTDOWN);
    }

    private Optional<DeviceRoute> endConnection(String connectionId, String reason) {
        Optional<DeviceRoute> released = routes.release(connectionId);
        released.ifPresent(r -> {
            List<OutboxPublisher.Message> journal = new ArrayList<>();
            end(r, reason, journal);
            outbox.publishAll(journal);
            announce(List.of(r.uid()));
        });
        return released;
    }

    /**
     * Expires silent sessions and those of lost nodes; their connections get kicked, and all of them
     * are announced ({@link SessionsLost}) in this transaction.
     */
    @Transactional
    public int expire() {
        return ended(routes.expire(settings.heartbeatTimeout(), settings.nodeTimeout()));
    }

    /**
     * Node {@code nodeId} is starting: the routes that name it are leftovers of its previous run,
     * whose connections died with it (nothing connects before the node has started). They end as
     * that run's lost sessions ({@code node_lost}, and {@link SessionsLost} with its last
     * heartbeat) at once, rather than showing their users online until their heartbeats time out.
     * At most 10,000 a call; how many ended.
     */
    @Transactional
    public int endLeftoverSessions(int nodeId) {
        return ended(routes.releaseNode(nodeId));
    }

    /** Ends the removed routes' sessions (login log, kicks, presence) and announces them. */
    private int ended(RouteStore.Expired expired) {
        List<DeviceRoute> gone = expired.routes();
        List<OutboxPublisher.Message> journal = new ArrayList<>();
        List<SessionsLost.Lost> lost = new ArrayList<>();
        for (DeviceRoute r : gone) {
            end(r, isSilent(r) ? SessionEnded.TIMEOUT : SessionEnded.NODE_LOST, journal);
            lost.add(new SessionsLost.Lost(r, expired.nodeHeartbeats().get(r.nodeId())));
        }
        if (!lost.isEmpty()) {
            sessionsLost.fire(new SessionsLost(lost));
        }
        outbox.publishAll(journal);
        announce(gone.stream().map(DeviceRoute::uid).toList());
        return gone.size();
    }

    private boolean isSilent(DeviceRoute r) {
        return r.lastHeartbeatAt() != null && r.lastHeartbeatAt().isBefore(
                java.time.OffsetDateTime.now().minus(settings.heartbeatTimeout()));
    }

    /**
     * An account was disabled or unregistered: in that same transaction its routes go, and after
     * commit every connection it had, on any node, gets a kick frame and is closed.
     */
    void onAccountDeactivated(@Observes AccountDeactivated deactivated) {
        List<OutboxPublisher.Message> journal = new ArrayList<>();
        for (DeviceRoute r : routes.releaseAll(deactivated.accountId())) {
            end(r, deactivated.reason(), journal);
        }
        outbox.publishAll(journal);
        announce(List.of(deactivated.accountId()));
    }

    /** For each user whose set of online device types changed: a new version and a PresenceChanged event. */
    private void announce(List<Long> uids) {
        routes.bumpPresenceVersions(uids).forEach((uid, changed) -> {
            List<PresenceChanged.Device> devices = changed.routes().stream()
                    .map(r -> new PresenceChanged.Device(r.deviceType(), r.deviceId())).toList();
            presenceChanged.fire(new PresenceChanged(uid, !devices.isEmpty(), devices, changed.version()));
        });
    }

    /**
     * An operator kicks a user's device type: the routes go in this transaction, the connections
     * get a {@code kick} ({@code kicked_by_admin}) after commit, on whichever node holds them.
     * Returns how many sessions ended.
     */
    @Transactional
    public int kick(long uid, String deviceType) {
        List<DeviceRoute> gone = routes.release(uid, deviceType);
        List<OutboxPublisher.Message> journal = new ArrayList<>();
        gone.forEach(r -> end(r, SessionEnded.KICKED_BY_ADMIN, journal));
        outbox.publishAll(journal);
        if (!gone.isEmpty()) {
            announce(List.of(uid));
        }
        return gone.size();
    }

    /** Online users per device type; key {@code *}: online users in all. */
    public java.util.Map<String, Long> onlineByDeviceType() {
        return routes.onlineByDeviceType();
    }

    /** Every node that ever heartbeated: id, address, connections, last heartbeat, alive or not. */
    public List<ClusterNode> nodes() {
        return routes.nodes(settings.nodeTimeout());
    }

    /** The users among {@code uids} with at least one live device route. */
    public Set<Long> onlineAmong(List<Long> uids) {
        return routes.targetsOf(uids).stream().map(RouteTarget::uid).collect(Collectors.toSet());
    }

    /** The users' presence as their contacts' {@code presence} frames tell it: online devices and version. */
    public List<PresenceChanged> presenceOf(List<Long> uids) {
        Map<Long, Long> versions = routes.presenceVersions(uids); // first: see presenceVersions
        Map<Long, List<PresenceChanged.Device>> devices = new HashMap<>();
        routes.routesOf(uids).forEach(r -> devices.computeIfAbsent(r.uid(), u -> new ArrayList<>())
                .add(new PresenceChanged.Device(r.deviceType(), r.deviceId())));
        return uids.stream().map(uid -> {
            List<PresenceChanged.Device> online = devices.getOrDefault(uid, List.of());
            return new PresenceChanged(uid, !online.isEmpty(), online, versions.getOrDefault(uid, 0L));
        }).toList();
    }

    /** Where the users' devices are connected: what a delivery needs of their routes. */
    public List<RouteTarget> targetsOf(List<Long> uids) {
        return routes.targetsOf(uids);
    }

    public List<DeviceRoute> routesOf(long uid) {
        return routes.routesOf(uid);
    }

    public List<DeviceRoute> routesOf(List<Long> uids) {
        return routes.routesOf(uids);
    }

    /**
     * The user's latest {@code limit} login-log entries, newest first. The log is written from
     * roost-login-events, so a session change shows up shortly after its commit, not with it.
     */
    public List<LoginLogEntry> loginLog(long uid, int limit) {
        return loginLog.recent(uid, limit);
    }

    /** Every session change goes to roost-login-events (and from there to the login log). */
    private static OutboxPublisher.Message logEntry(String event, DeviceRoute r, String reason) {
        var body = Jsonp.PROVIDER.createObjectBuilder().add("event", event).add("uid", r.uid()).add("deviceType", r.deviceType())
                .add("nodeId", r.nodeId()).add("connectionId", r.connectionId())
                .add("at", java.time.Instant.now().toString());
        if (r.deviceId() != null) {
            body.add("deviceId", r.deviceId());
        }
        if (reason != null) {
            body.add("reason", reason);
        }
        return new OutboxPublisher.Message(LOGIN_EVENTS_TOPIC, event, Long.toString(r.uid()), body.build().toString());
    }

    /** A session ends by another's hand: logged, and its connection kicked after commit, on whichever node holds it. */
    private void end(DeviceRoute r, String reason, List<OutboxPublisher.Message> journal) {
        String logEvent = switch (reason) {
            case SessionEnded.TIMEOUT -> "timeout";
            case SessionEnded.NODE_LOST -> "node_lost";
            case SessionEnded.UNREACHABLE -> "unreachable";
            case SessionEnded.ACK_TIMEOUT -> "ack_timeout";
            default -> "kick";
        };
        journal.add(logEntry(logEvent, r, reason));
        SessionEnded event = new SessionEnded(r.nodeId(), r.connectionId(), r.uid(), r.deviceType(), reason);
        if (r.nodeId() == node.nodeId()) {
            ended.fire(event); // observed after commit by this node's gateway
        } else {
            journal.add(new OutboxPublisher.Message(KICK_TOPIC, "node-" + r.nodeId(), r.connectionId(),
                    Jsonp.PROVIDER.createObjectBuilder().add("nodeId", r.nodeId()).add("connectionId", r.connectionId())
                            .add("uid", r.uid()).add("deviceType", r.deviceType()).add("reason", reason).build().toString()));
        }
    }
}
