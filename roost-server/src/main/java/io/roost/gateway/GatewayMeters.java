package io.roost.gateway;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Timer;
import io.roost.identity.AccountDeactivated;
import io.roost.platform.cluster.Draining;
import io.roost.platform.config.DeviceTypes;
import io.roost.platform.metrics.Meters;
import io.roost.presence.session.SessionEnded;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The gateway's meters ({@code roost.gateway.*}, and the {@code roost.chat.*} ones of its delivery
 * code), registered once; the code calls the small methods here. Labels come only from known
 * values (the configured device types, the documented kick reasons); anything else counts as
 * {@link #OTHER}. The gauges read state the gateway keeps anyway: a scrape does no work of its own.
 */
@ApplicationScoped
public class GatewayMeters {

    /** The label of a device type or reason outside the known ones. */
    static final String OTHER = "other";

    /** The reasons a session ends by the server's hand (docs/protocol.md, {@code kick}), and {@code unreachable}. */
    static final List<String> KICK_REASONS = List.of(SessionEnded.REPLACED, SessionEnded.TIMEOUT, SessionEnded.NODE_LOST,
            SessionEnded.KICKED_BY_ADMIN, AccountDeactivated.DISABLED, AccountDeactivated.UNREGISTERED, SessionEnded.UNREACHABLE,
            SessionEnded.ACK_TIMEOUT, SessionEnded.SERVER_SHUTDOWN);

    @Inject
    Meters meters;

    @Inject
    DeviceTypes deviceTypes;

    @Inject
    Connections connections;

    @Inject
    LoginQueue logins;

    @Inject
    Delivery delivery;

    @Inject
    Draining draining;

    private Map<String, Counter> loginsByType;
    private Map<String, Counter> kicksByReason;
    private Counter heartbeats;
    private DistributionSummary loginBatch;
    private Counter forwardsGivenUp;
    private Counter oneToOnePushes;
    private Counter groupPushes;
    private Counter againPushes;
    private Timer ack;
    private Counter ackTimeouts;
    private Counter unreachableRepairs;
    private DistributionSummary groupFanout;

    @PostConstruct
    void start() {
        register(deviceTypes.all());
    }

    /** Registers every meter, with a connections gauge and a logins counter per device type. */
    void register(Collection<String> types) {
        loginsByType = byLabel(types, t -> meters.counter("roost.gateway.logins", "device logins accepted on this node",
                "device_type", t));
        kicksByReason = byLabel(KICK_REASONS, r -> meters.counter("roost.gateway.kicks",
                "sessions ended by the server, by kick/session-end reason", "reason", r));
        for (String type : types) {
            meters.gauge("roost.gateway.connections", "device WebSocket sessions logged in on this node now", connections,
                    c -> c.loggedIn(type), "device_type", type);
        }
        meters.gauge("roost.gateway.login.queue", "logins waiting in the login queue", logins, LoginQueue::queued);
        loginBatch = meters.sizes("roost.gateway.login.batch", "logins committed per login-queue batch", Meters.BATCH_BUCKETS);
        heartbeats = meters.counter("roost.gateway.heartbeats", "heartbeats received");
        meters.gauge("roost.gateway.held.forwards", "pushes held because the broker would not take them", delivery,
                Delivery::heldCount);
        forwardsGivenUp = meters.counter("roost.gateway.forwards.given.up", "held pushes given up to the offline path");
        meters.gauge("roost.gateway.draining", "1 while this node drains", draining, d -> d.isDraining() ? 1 : 0);
        oneToOnePushes = meters.counter("roost.chat.pushes", "message pushes written to devices on this node (first attempts)",
                "kind", "one_to_one");
        groupPushes = meters.counter("roost.chat.pushes", "message pushes written to devices on this node (first attempts)",
                "kind", "group");
        againPushes = meters.counter("roost.chat.again.pushes", "pushes sent again after no ack");
        ack = meters.latency("roost.chat.ack", "push written to the device's ack");
        ackTimeouts = meters.counter("roost.chat.ack.timeouts", "pushes never acked in time (session ended ack_timeout)");
        unreachableRepairs = meters.counter("roost.chat.unreachable.repairs",
                "routes found dead and repaired (device was not where the route said)");
        groupFanout = meters.sizes("roost.chat.group.fanout", "devices one group message reached on this node",
                Meters.FANOUT_BUCKETS);
    }

    /** The counter of each known label, and one for {@link #OTHER}; built once, read without a lookup in the registry. */
    private static Map<String, Counter> byLabel(Collection<String> labels, java.util.function.Function<String, Counter> counter) {
        Map<String, Counter> map = new HashMap<>();
        for (String label : labels) {
            map.put(label, counter.apply(label));
        }
        map.put(OTHER, counter.apply(OTHER));
        return Map.copyOf(map);
    }

    private static Counter of(Map<String, Counter> byLabel, String label) {
        Counter c = label == null ? null : byLabel.get(label);
        return c != null ? c : byLabel.get(OTHER);
    }

    /** A device login accepted on this node. */
    public void login(String deviceType) {
        of(loginsByType, deviceType).increment();
    }

    /** A batch of the login queue, {@code size} logins. */
    void loginBatch(int size) {
        loginBatch.record(size);
    }

    public void heartbeat() {
        heartbeats.increment();
    }

    /** A session of this node ended by the server's hand, for {@code reason}. */
    void kick(String reason) {
        of(kicksByReason, reason).increment();
    }

    /** Frames for other nodes given up after the broker did not take them. */
    void forwardsGivenUp(int frames) {
        forwardsGivenUp.increment(frames);
    }

    /** A chat message pushed to a device of this node, awaiting its ack. */
    void pushed(boolean group) {
        (group ? groupPushes : oneToOnePushes).increment();
    }

    void pushedAgain() {
        againPushes.increment();
    }

    /** A pushed message acknowledged {@code nanos} after it was pushed. */
    void ackLatency(long nanos) {
        ack.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** A device given up on: {@code pushes} messages it never acknowledged. */
    void ackTimeouts(int pushes) {
        ackTimeouts.increment(pushes);
    }

    void unreachableRepair() {
        unreachableRepairs.increment();
    }

    /** One group message reached {@code devices} devices of this node. */
    void groupFanout(int devices) {
        groupFanout.record(devices);
    }
}
