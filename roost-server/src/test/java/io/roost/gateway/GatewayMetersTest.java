package io.roost.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.roost.chat.ChatSettings;
import io.roost.platform.cluster.Draining;
import io.roost.platform.metrics.Meters;
import io.roost.presence.session.SessionEnded;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The gateway's meters move for the events they count, and its gauges read the gateway's state. */
class GatewayMetersTest {

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final GatewayMeters meters = new GatewayMeters();
    private final Connections connections = new Connections();
    private AckWheel wheel;

    GatewayMetersTest() {
        meters.meters = Meters.over(registry);
        meters.connections = connections;
        meters.logins = new LoginQueue();
        meters.delivery = new Delivery();
        meters.draining = new Draining();
        meters.register(List.of("ios", "android"));
        connections.meters = meters;
        connections.groups = new GroupFanout();
    }

    @AfterEach
    void stopWheel() {
        if (wheel != null) {
            wheel.stop();
        }
    }

    private double count(String name, String... tags) {
        return registry.get(name).tags(tags).counter().count();
    }

    private double gauge(String name, String... tags) {
        return registry.get(name).tags(tags).gauge().value();
    }

    /** A connection of this node on a socket that writes whatever it is sent. */
    private void open(String connectionId) {
        ConnectionsTest.FakeSocket socket = new ConnectionsTest.FakeSocket();
        socket.keepsUp = true;
        connections.add(connectionId, new Connections.Outbound(socket.session, Connections.DIRECT));
    }

    @Test
    void aLoginCountsByItsDeviceTypeAndItsConnectionWhileItLasts() {
        open("c1");
        open("c2");
        meters.login("ios");
        connections.loggedIn("c1", "ios");
        assertEquals(1, gauge("roost.gateway.connections", "device_type", "ios"), "c1 counts once logged in");
        assertEquals(0, gauge("roost.gateway.connections", "device_type", "android"), "c2 is still logging in");
        connections.loggedIn("c1", "ios");
        assertEquals(1, gauge("roost.gateway.connections", "device_type", "ios"), "a second call counts nothing");
        assertEquals(1, count("roost.gateway.logins", "device_type", "ios"));
        assertEquals(0, count("roost.gateway.logins", "device_type", "android"));

        meters.login("toaster");
        assertEquals(1, count("roost.gateway.logins", "device_type", GatewayMeters.OTHER), "an unknown type is other");

        connections.remove("c1");
        connections.remove("c1");
        assertEquals(0, gauge("roost.gateway.connections", "device_type", "ios"), "removed once, counted down once");
        connections.loggedIn("c1", "ios");
        assertEquals(0, gauge("roost.gateway.connections", "device_type", "ios"), "a login finishing after its close counts nothing");
    }

    @Test
    void aSessionEndedByTheServerCountsAsAKickByItsReason() {
        open("c1");
        connections.loggedIn("c1", "android");
        connections.onSessionEnded(new SessionEnded(1, "c1", 7, "android", SessionEnded.ACK_TIMEOUT));
        connections.onSessionEnded(new SessionEnded(1, "gone", 7, "android", SessionEnded.REPLACED));
        connections.onSessionEnded(new SessionEnded(1, "gone", 8, "ios", "made up by someone"));
        assertEquals(1, count("roost.gateway.kicks", "reason", SessionEnded.ACK_TIMEOUT));
        assertEquals(1, count("roost.gateway.kicks", "reason", SessionEnded.REPLACED));
        assertEquals(1, count("roost.gateway.kicks", "reason", GatewayMeters.OTHER), "an unknown reason is other");
        assertEquals(0, count("roost.gateway.kicks", "reason", "account_disabled"));
        assertNull(registry.find("roost.gateway.kicks").tags("reason", "made up by someone").counter(), "no label from outside");
        assertEquals(0, gauge("roost.gateway.connections", "device_type", "android"), "the kicked connection is gone");
    }

    @Test
    void aPushAndItsAckCountThePushAndRecordTheAcksLatency() {
        wheel = new AckWheel();
        wheel.connections = connections;
        wheel.meters = meters;
        wheel.settings = new ChatSettings() {
            @Override
            public Duration ackTimeout() {
                return Duration.ofMinutes(1);
            }

            @Override
            public int ackRetries() {
                return 1;
            }
        };
        wheel.threads = (ManagedThreadFactory) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ManagedThreadFactory.class}, (proxy, method, args) -> {
                    if (!method.getName().equals("newThread")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    Thread t = new Thread((Runnable) args[0], "ack-wheel-test");
                    t.setDaemon(true);
                    return t;
                });
        wheel.start();
        open("c1");
        assertTrue(wheel.push("c1", 7, 8, 1, true, "{}"));
        assertTrue(wheel.push("c1", 7, 8, 2, true, "{}"));
        assertTrue(wheel.pushGroup("c1", 7, 900, 5, "{}"));
        assertEquals(2, count("roost.chat.pushes", "kind", "one_to_one"));
        assertEquals(1, count("roost.chat.pushes", "kind", "group"));

        wheel.ack("c1", 8, 2);
        Timer ack = registry.get("roost.chat.ack").timer();
        assertEquals(2, ack.count(), "one latency for each message the cumulative ack cleared");
        wheel.ackGroup("c1", 900, 5);
        assertEquals(3, ack.count());
        assertTrue(ack.max(TimeUnit.SECONDS) < 60, "measured from the push, not the deadline");
        wheel.ack("c1", 8, 2);
        assertEquals(3, ack.count(), "a repeated ack clears nothing, records nothing");
    }

    @Test
    void deliveryCountersAndHistogramsMove() {
        meters.heartbeat();
        meters.pushedAgain();
        meters.ackTimeouts(3);
        meters.unreachableRepair();
        meters.forwardsGivenUp(2);
        meters.groupFanout(40);
        meters.loginBatch(15);
        assertEquals(1, count("roost.gateway.heartbeats"));
        assertEquals(1, count("roost.chat.again.pushes"));
        assertEquals(3, count("roost.chat.ack.timeouts"));
        assertEquals(1, count("roost.chat.unreachable.repairs"));
        assertEquals(2, count("roost.gateway.forwards.given.up"));
        assertEquals(40, registry.get("roost.chat.group.fanout").summary().totalAmount());
        assertEquals(15, registry.get("roost.gateway.login.batch").summary().totalAmount());
    }

    @Test
    void gaugesReadTheQueueTheHeldFramesAndTheDrain() {
        assertEquals(0, gauge("roost.gateway.login.queue"));
        assertEquals(0, gauge("roost.gateway.held.forwards"));
        assertEquals(0, gauge("roost.gateway.draining"));
        meters.draining.start();
        assertEquals(1, gauge("roost.gateway.draining"));
    }

    @Test
    void heldFramesGivenUpAreCounted() {
        List<Integer> givenUp = new java.util.ArrayList<>();
        HeldForwards held = new HeldForwards(1, 1_000, () -> 0, givenUp::add);
        HeldForwards.Sender down = (node, body) -> false;
        held.sendOrHold(2, "a", () -> { }, down);
        held.sendOrHold(2, "b", () -> { }, down); // the queue is full: b is given up at once
        held.giveUpAll();
        assertEquals(List.of(1, 1), givenUp);
    }
}
