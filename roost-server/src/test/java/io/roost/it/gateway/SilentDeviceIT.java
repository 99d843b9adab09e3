package io.roost.it.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.DeployedRoost;
import io.roost.it.LoginLog;
import io.roost.it.TestUsers;
import io.roost.it.WsDevice;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A device that says nothing after its login, with a heartbeat timeout above the HTTP listener's
 * read/write timeouts (a server of its own, the pom's follow-mode execution, sets both short:
 * {@code ROOST_HTTP_IO_TIMEOUT_MS} below {@code ROOST_SESSION_HEARTBEAT_TIMEOUT}, as WildFly's 90 s
 * are below a production heartbeat timeout of minutes). Only Roost's heartbeat timeout may end the
 * session: nothing before it, then a kick frame, close 1008 and a timeout entry in the login log.
 * Before the socket's limits followed the heartbeat timeout, the listener dropped the TCP
 * connection at its own timeout (1006, logged as a logout).
 */
class SilentDeviceIT extends DeployedRoost {

    /** The sweep runs every 5 s; the kick may follow the timeout by that, plus a commit. */
    private static final Duration SWEEP_SLACK = Duration.ofSeconds(15);

    @Test
    void aSilentDeviceIsKickedAtTheHeartbeatTimeoutAndNotBefore() throws Exception {
        Duration timeout = Duration.ofSeconds(Long.getLong("roost.test.heartbeat.timeout.seconds", 0));
        Duration listener = Duration.ofMillis(Long.getLong("roost.test.http.io.timeout.ms", 90_000));
        assertTrue(timeout.compareTo(listener.multipliedBy(2)) >= 0, "needs a heartbeat timeout well above the listener's "
                + listener + ", not " + timeout + ": the pom's follow-mode execution runs it");
        TestUsers.User user = TestUsers.register(baseUrl, "silent-");
        long loggedInAt = System.nanoTime();
        WsDevice device = WsDevice.login(baseUrl, user.token(), "web", "w");

        JsonObject frame = device.frames.poll(timeout.plus(SWEEP_SLACK).toMillis(), TimeUnit.MILLISECONDS);
        Duration after = Duration.ofNanos(System.nanoTime() - loggedInAt);
        assertFalse(device.closed.isDone() && frame == null, "closed after " + after + " without a kick, code "
                + device.closed.getNow(null));
        assertNotNull(frame, "no kick within " + timeout.plus(SWEEP_SLACK));
        assertEquals("kick", frame.getString("type"), frame.toString());
        assertEquals("heartbeat_timeout", frame.getString("reason"));
        assertTrue(after.compareTo(timeout) >= 0, "kicked after " + after + ", before the timeout " + timeout);
        assertEquals(1008, device.closeCode());

        LoginLog.await(baseUrl, user.id(), java.util.List.of("timeout"));
    }
}
