package io.roost.it;

import static io.roost.it.Http.ADMIN;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URL;
import java.time.Duration;
import java.util.List;

/** The login log over the admin API (outbox → RocketMQ → consumer → login_log, so it is polled). */
public final class LoginLog {

    private LoginLog() {
    }

    /** The user's login-log events, newest first. */
    public static List<String> events(URL base, String uid) throws Exception {
        var r = new Http(base).get("api/v1/presence/users/" + uid + "/logins", ADMIN);
        assertEquals(200, r.statusCode(), r.body());
        return Http.jsonArray(r.body()).stream().map(e -> e.asJsonObject().getString("event")).toList();
    }

    /** Waits until the log holds these events (within a minute); returns how long that took. */
    public static Duration await(URL base, String uid, List<String> expected) throws Exception {
        long start = System.nanoTime();
        long deadline = start + Duration.ofMinutes(1).toNanos();
        List<String> events = List.of();
        while (System.nanoTime() < deadline) {
            events = events(base, uid);
            if (events.containsAll(expected)) {
                return Duration.ofNanos(System.nanoTime() - start);
            }
            Thread.sleep(100);
        }
        throw new AssertionError("login log of " + uid + " has " + events + ", expected " + expected);
    }
}
