package io.roost.presence.session;

import io.roost.identity.AccountDeactivated;
import io.roost.platform.json.Jsonp;
import io.roost.platform.config.NodeIdentity;
import io.roost.platform.ids.IdGenerator;
import io.roost.platform.outbox.OutboxPublisher;
import io.roost.presence.store.RouteStore;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.util.List;
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
    public record Login(boolean accepted, long epoch, Optional<RouteStore.Route> displaced) {
    }

    @EJB
    RouteStore routes;

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

    @Transactional
    public Login login(long uid, String deviceType, String deviceId, String connectionId) {
        SessionSettings.Policy policy = settings.policy(deviceType);
        long epoch = ids.nextId();
        String sessionKey = policy == SessionSettings.Policy.ALLOW_MANY ? connectionId : "";
        RouteStore.Route wanted = new RouteStore.Route(uid, deviceType, sessionKey, node.nodeId(), connectionId, deviceId,
                epoch, null, null);
        Optional<RouteStore.Route> holder = routes.claim(wanted, policy == SessionSettings.Policy.KICK_OLD);
        if (holder.isPresent() && policy == SessionSettings.Policy.REFUSE_NEW) {
            return new Login(false, epoch, Optional.empty());
        }
        holder.filter(h -> !h.connectionId().equals(connectionId))
                .ifPresent(h -> end(h, SessionEnded.REPLACED));
        log("login", wanted, null);
        announce(uid);
        return new Login(true, epoch, holder);
    }

    /** The connection ends its own session (logout or close). */
    @Transactional
    public Optional<RouteStore.Route> logout(String connectionId) {
        Optional<RouteStore.Route> released = routes.release(connectionId);
        released.ifPresent(r -> {
            log("logout", r, null);
            announce(r.uid());
        });
        return released;
    }

    /** Expires silent sessions and those of lost nodes; their connections get kicked. */
    @Transactional
    public int expire() {
        List<RouteStore.Route> gone = routes.expire(settings.heartbeatTimeout(), NodeRegistry.NODE_TIMEOUT);
        for (RouteStore.Route r : gone) {
            end(r, isSilent(r) ? SessionEnded.TIMEOUT : SessionEnded.NODE_LOST);
        }
        gone.stream().map(RouteStore.Route::uid).distinct().sorted().forEach(this::announce);
        return gone.size();
    }

    private boolean isSilent(RouteStore.Route r) {
        return r.lastHeartbeatAt() != null && r.lastHeartbeatAt().isBefore(
                java.time.OffsetDateTime.now().minus(settings.heartbeatTimeout()));
    }

    /**
     * An account was disabled or unregistered: in that same transaction its routes go, and after
     * commit every connection it had, on any node, gets a kick frame and is closed.
     */
    void onAccountDeactivated(@Observes AccountDeactivated deactivated) {
        for (RouteStore.Route r : routes.releaseAll(deactivated.accountId())) {
            end(r, deactivated.reason());
        }
        announce(deactivated.accountId());
    }

    /** If the user's set of online device types changed: a new version and a PresenceChanged event. */
    private void announce(long uid) {
        routes.bumpPresenceVersion(uid).ifPresent(changed -> {
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
        List<RouteStore.Route> gone = routes.release(uid, deviceType);
        gone.forEach(r -> end(r, SessionEnded.KICKED_BY_ADMIN));
        if (!gone.isEmpty()) {
            announce(uid);
        }
        return gone.size();
    }

    /** Online users per device type; key {@code *}: online users in all. */
    public java.util.Map<String, Long> onlineByDeviceType() {
        return routes.onlineByDeviceType();
    }

    /** The users among {@code uids} with at least one live device route. */
    public Set<Long> onlineAmong(List<Long> uids) {
        return routes.routesOf(uids).stream().map(RouteStore.Route::uid).collect(Collectors.toSet());
    }

    public List<RouteStore.Route> routesOf(long uid) {
        return routes.routesOf(uid);
    }

    public List<RouteStore.Route> routesOf(List<Long> uids) {
        return routes.routesOf(uids);
    }

    /** Every session change goes to roost-login-events (and from there to the login log). */
    private void log(String event, RouteStore.Route r, String reason) {
        var body = Jsonp.PROVIDER.createObjectBuilder().add("event", event).add("uid", r.uid()).add("deviceType", r.deviceType())
                .add("nodeId", r.nodeId()).add("connectionId", r.connectionId())
                .add("at", java.time.Instant.now().toString());
        if (r.deviceId() != null) {
            body.add("deviceId", r.deviceId());
        }
        if (reason != null) {
            body.add("reason", reason);
        }
        outbox.publish(LOGIN_EVENTS_TOPIC, event, Long.toString(r.uid()), body.build().toString());
    }

    private void end(RouteStore.Route r, String reason) {
        String logEvent = switch (reason) {
            case SessionEnded.TIMEOUT -> "timeout";
            case SessionEnded.NODE_LOST -> "node_lost";
            default -> "kick";
        };
        log(logEvent, r, reason);
        SessionEnded event = new SessionEnded(r.nodeId(), r.connectionId(), r.uid(), r.deviceType(), reason);
        if (r.nodeId() == node.nodeId()) {
            ended.fire(event); // observed after commit by this node's gateway
        } else {
            outbox.publish(KICK_TOPIC, "node-" + r.nodeId(), r.connectionId(), Jsonp.PROVIDER.createObjectBuilder()
                    .add("nodeId", r.nodeId()).add("connectionId", r.connectionId()).add("uid", r.uid())
                    .add("deviceType", r.deviceType()).add("reason", reason).build().toString());
        }
    }
}
