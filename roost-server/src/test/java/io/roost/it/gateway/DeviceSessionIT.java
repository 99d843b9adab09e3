package io.roost.it.gateway;

import static io.roost.it.Http.ADMIN;
import static io.roost.it.Http.json;
import static io.roost.it.Http.okJson;
import static io.roost.it.Problems.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.Database;
import io.roost.it.DeployedRoost;
import io.roost.it.Http;
import io.roost.it.LoginLog;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import io.roost.it.Wait;
import io.roost.it.WsDevice;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/** Devices on real WebSockets: hello, login, heartbeat, logout, kick-out, timeout, bad frames. */
@Isolated("locks the route table, and counts the gateway's logins")
class DeviceSessionIT extends DeployedRoost {

    WsDevice connect() throws Exception {
        return WsDevice.connect(baseUrl);
    }

    WsDevice login(String token, String deviceType, String deviceId) throws Exception {
        return WsDevice.login(baseUrl, token, deviceType, deviceId);
    }

    /** A fresh user account and a token that binds no device, so each test picks its devices. */
    User user() throws Exception {
        return TestUsers.create(baseUrl, "dev-");
    }

    JsonObject presence(String uid) throws Exception {
        return json(http().get("api/v1/presence/users/" + uid, ADMIN));
    }

    /** A device that says hello and logs in with the token is refused with this error, and closed as a policy violation. */
    void assertLoginRefused(String token, String deviceType, String deviceId, String code) throws Exception {
        WsDevice d = WsDevice.hello(baseUrl, deviceType, deviceId);
        d.sendLogin(token);
        assertEquals(code, d.expect("error").getString("code"));
        assertEquals(1008, d.closeCode());
    }

    @Test
    void helloLoginHeartbeatLogout() throws Exception {
        User user = user();
        WsDevice d = login(user.token(), "android", "phone-1");
        d.send("{\"v\":1,\"type\":\"heartbeat\"}");
        d.expect("heartbeat");
        JsonObject online = presence(user.id());
        assertTrue(online.getBoolean("online"));
        assertEquals("android", online.getJsonArray("devices").getJsonObject(0).getString("deviceType"));
        assertEquals("phone-1", online.getJsonArray("devices").getJsonObject(0).getString("deviceId"));
        d.send("{\"v\":1,\"type\":\"logout\"}");
        d.expect("logout");
        assertEquals(1000, d.closeCode());
        assertFalse(presence(user.id()).getBoolean("online"));
        LoginLog.await(baseUrl, user.id(), List.of("logout", "login"));
        // Logout keeps the token (seed 001): the device can log in again with it.
        login(user.token(), "android", "phone-1").bye();
    }

    @Test
    void aSecondLoginOfTheSameTypeKicksTheFirstAndOtherTypesStay() throws Exception {
        User user = user();
        WsDevice phone = login(user.token(), "android", "phone-old");
        WsDevice tablet = login(user.token(), "ios", "ipad");
        WsDevice newPhone = login(user.token(), "android", "phone-new");
        JsonObject kick = phone.expect("kick");
        assertEquals("replaced_by_new_login", kick.getString("reason"));
        assertEquals(1008, phone.closeCode());
        tablet.send("{\"v\":1,\"type\":\"heartbeat\"}");
        tablet.expect("heartbeat");
        JsonObject p = presence(user.id());
        assertEquals(2, p.getJsonArray("devices").size(), p.toString());
        assertTrue(p.toString().contains("phone-new") && !p.toString().contains("phone-old"), p.toString());
        newPhone.bye();
        tablet.bye();
        LoginLog.await(baseUrl, user.id(), List.of("kick", "login"));
    }

    @Test
    void twentyConcurrentLoginsLeaveExactlyOneSession() throws Exception {
        User user = user();
        List<WsDevice> devices = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            WsDevice d = connect();
            d.send("{\"v\":1,\"type\":\"hello\",\"deviceId\":\"web-" + i + "\",\"deviceType\":\"web\"}");
            d.expect("hello");
            devices.add(d);
        }
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(20);
        for (WsDevice d : devices) {
            pool.submit(() -> {
                start.await();
                d.send("{\"v\":1,\"type\":\"login\",\"token\":\"" + user.token() + "\"}");
                return null;
            });
        }
        start.countDown();
        pool.shutdown();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
        long deadline = System.currentTimeMillis() + 30_000;
        while (devices.stream().filter(d -> d.closed.isDone()).count() < 19 && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
        }
        List<WsDevice> survivors = devices.stream().filter(d -> !d.closed.isDone()).toList();
        assertEquals(1, survivors.size(), "exactly one live session");
        JsonObject p = presence(user.id());
        assertEquals(1, p.getJsonArray("devices").size(), p.toString());
        WsDevice survivor = survivors.get(0);
        survivor.send("{\"v\":1,\"type\":\"heartbeat\"}");
        JsonObject frame;
        do {
            frame = survivor.next(); // skip its own login answer
        } while (!frame.getString("type").equals("heartbeat"));
        survivor.bye();
    }

    @Test
    void forgedTokenIsRefusedWithPolicyViolation() throws Exception {
        assertLoginRefused("rst_forged", "android", "x", "invalid-token");
    }

    @Test
    void badFramesGetAnErrorAndProtocolViolationsAClose() throws Exception {
        WsDevice notJson = connect();
        notJson.send("hello?");
        assertEquals("malformed-frame", notJson.expect("error").getString("code"));
        assertEquals(1008, notJson.closeCode());

        // a heartbeat, a send, an acknowledgement before login: refused, and the connection closed
        for (String frame : java.util.List.of("{\"v\":1,\"type\":\"heartbeat\"}",
                "{\"v\":1,\"type\":\"chatOp\",\"seq\":\"c1\",\"op\":\"send\",\"peer\":\"1\",\"sendId\":\"s1\",\"msgType\":\"text\",\"body\":{\"text\":\"x\"}}",
                "{\"v\":1,\"type\":\"chatAck\",\"peer\":\"1\",\"seq\":1}")) {
            WsDevice early = connect();
            early.send(frame);
            assertEquals("login-first", early.expect("error").getString("code"), frame);
            assertEquals(1008, early.closeCode(), frame);
        }

        WsDevice loginFirst = connect();
        loginFirst.send("{\"v\":1,\"type\":\"login\",\"token\":\"x\"}");
        assertEquals("hello-first", loginFirst.expect("error").getString("code"));

        // a client that sends op after op without waiting for answers is stopped once 256 wait
        WsDevice flooding = login(user().token(), "desktop", "flood");
        try {
            for (int i = 0; i < 5_000; i++) {
                flooding.send("{\"v\":1,\"type\":\"chatOp\",\"seq\":\"f" + i + "\",\"op\":\"conversations\"}");
            }
        } catch (RuntimeException closedMeanwhile) {
            // the server closed the connection: the sends after that fail
        }
        assertEquals("too-many-frames", flooding.await("error").getString("code"));
        assertEquals(1008, flooding.closeCode());

        User user = user();
        WsDevice d = login(user.token(), "desktop", "pc");
        d.send("{\"v\":1,\"type\":\"teleport\"}");
        assertEquals("unknown-type", d.expect("error").getString("code"));
        d.send("{\"v\":1,\"type\":\"heartbeat\"}");
        d.expect("heartbeat"); // an unknown type is not a violation: still connected
        d.bye();
    }

    @Test
    void aSilentDeviceTimesOutAndIsKicked() throws Exception {
        User user = user();
        WsDevice d = login(user.token(), "pad", "tab"); // ROOST_SESSION_HEARTBEAT_TIMEOUT is 8 s in the tests
        JsonObject kick = d.frames.poll(40, TimeUnit.SECONDS);
        assertNotNull(kick, "kicked within 40 s");
        assertEquals("kick", kick.getString("type"));
        assertEquals("heartbeat_timeout", kick.getString("reason"));
        assertEquals(1008, d.closeCode());
        assertFalse(presence(user.id()).getBoolean("online"));
    }

    @Test
    void bulkPresenceQuery() throws Exception {
        User a = user();
        User b = user();
        WsDevice d = login(a.token(), "web", "browser");
        var r = http().post("api/v1/presence/users:query", ADMIN,
                "{\"uids\":[\"" + a.id() + "\",\"" + b.id() + "\"]}");
        assertEquals(200, r.statusCode(), r.body());
        var users = json(r).getJsonArray("users");
        assertTrue(users.getJsonObject(0).getBoolean("online"));
        assertFalse(users.getJsonObject(1).getBoolean("online"));
        assertEquals(400, http().post("api/v1/presence/users:query", ADMIN, "{\"uids\":[]}").statusCode());
        d.bye();
    }

    /**
     * This node's gateway stats, read until two reads agree on the login counters: a batch counts its
     * attempts, then itself, so a read in between would show a batch without its attempts.
     */
    JsonObject gatewayStats() throws Exception {
        JsonObject[] last = {okJson(http().get("api/v1/gateway/stats", ADMIN))};
        Wait.until("two reads of the login counters agree", Duration.ofSeconds(10), () -> {
            JsonObject previous = last[0];
            last[0] = okJson(http().get("api/v1/gateway/stats", ADMIN));
            return counter(previous, "attempts") == counter(last[0], "attempts")
                    && counter(previous, "batches") == counter(last[0], "batches");
        });
        return last[0];
    }

    static long counter(JsonObject stats, String name) {
        return stats.getJsonObject("logins").getJsonNumber(name).longValue();
    }

    /**
     * Other classes share this server, so its counters start wherever they left them: this test
     * checks what its own three logins and logouts did to them. Login counters only grow; the
     * connection count can also drop by others' devices closing, never below ours.
     */
    @Test
    void gatewayStatsCountConnectionsAndLoginBatches() throws Exception {
        User user = user();
        JsonObject before = gatewayStats();
        List<WsDevice> ours = List.of(login(user.token(), "android", "stats-phone"), login(user.token(), "web", "stats-browser"),
                login(user.token(), "ios", "stats-tablet"));
        JsonObject during = gatewayStats();
        assertTrue(counter(during, "attempts") - counter(before, "attempts") >= ours.size(), "our logins counted: " + before + " " + during);
        assertTrue(counter(during, "batches") > counter(before, "batches"), "in a batch or more: " + before + " " + during);
        assertTrue(counter(during, "batches") <= counter(during, "attempts"), "a batch holds one login or more: " + during);
        assertTrue(counter(during, "largestBatch") >= 1 && counter(during, "largestBatch") <= counter(during, "attempts"), during.toString());
        int connected = during.getInt("connections");
        assertTrue(connected >= ours.size(), "ours are connected: " + during);
        for (WsDevice d : ours) {
            d.send("{\"v\":1,\"type\":\"logout\"}");
            d.expect("logout"); // the connection leaves the count before this answer
        }
        JsonObject after = gatewayStats();
        assertTrue(after.getInt("connections") <= connected - ours.size(), "ours are no longer counted: " + during + " " + after);
        assertProblem(http().get("api/v1/gateway/stats", null), 401, "missing-credentials");
    }

    /**
     * The user's phone and browser are online when {@code end} ends the account: both are kicked
     * at once with {@code reason} and closed, the user is offline, and the kicks are in the login log.
     */
    User assertEveryDeviceKicked(Function<User, HttpResponse<String>> end, int status, String reason) throws Exception {
        User user = user();
        WsDevice phone = login(user.token(), "android", "p");
        WsDevice browser = login(user.token(), "web", "b");
        var r = end.apply(user);
        assertEquals(status, r.statusCode(), r.body());
        for (WsDevice d : List.of(phone, browser)) {
            assertEquals(reason, d.expect("kick").getString("reason"));
            assertEquals(1008, d.closeCode());
        }
        assertFalse(presence(user.id()).getBoolean("online"));
        LoginLog.await(baseUrl, user.id(), List.of("kick"));
        return user;
    }

    @Test
    void disablingAnAccountKicksEveryDeviceAtOnce() throws Exception {
        User user = assertEveryDeviceKicked(u -> http().post("api/v1/accounts/" + u.id() + "/disable", ADMIN, ""), 200, "account_disabled");
        // Its tokens are revoked: recovering the account does not bring them back.
        assertEquals(200, http().post("api/v1/accounts/" + user.id() + "/recover", ADMIN, "").statusCode());
        assertLoginRefused(user.token(), "android", "p", "invalid-token");
    }

    @Test
    void unregisteringAnAccountKicksEveryDeviceAtOnce() throws Exception {
        User user = assertEveryDeviceKicked(u -> http().delete("api/v1/accounts/me", u.auth()), 204, "account_unregistered");
        assertLoginRefused(user.token(), "android", "p", "invalid-token");
        assertProblem(http().get("api/v1/accounts/me", user.auth()), 401, "invalid-credentials");
    }

    @Test
    void aLogoutWithRevokeEndsItsTokenAndNoOther() throws Exception {
        User user = user();
        String other = okJson(http().post("api/v1/auth/tokens", Http.basic(user.name(), TestUsers.PASSWORD), "{}")).getString("token");
        WsDevice d = login(user.token(), "android", "revoking");
        d.send("{\"v\":1,\"type\":\"logout\",\"revoke\":true}");
        d.expect("logout");
        assertEquals(1000, d.closeCode());
        assertFalse(presence(user.id()).getBoolean("online"));
        assertLoginRefused(user.token(), "android", "revoking", "invalid-token");
        assertProblem(http().get("api/v1/accounts/me", user.auth()), 401, "invalid-credentials");
        // The user's other token (another device's, say) still works.
        assertEquals(user.id(), okJson(http().get("api/v1/accounts/me", Http.bearer(other))).getString("id"));
        login(other, "android", "revoking").bye();
    }

    @Test
    void aDeviceTokenOnlyLogsInItsOwnDevice() throws Exception {
        User user = TestUsers.register(baseUrl, "bound-");
        String token = TestUsers.login(baseUrl, user.name(), TestUsers.PASSWORD, "android", "own-phone");
        assertLoginRefused(token, "android", "stolen-into", "token-device-mismatch");
        login(token, "android", "own-phone").bye();
    }

    @Test
    void expiredAndRevokedTokensAreRefused() throws Exception {
        User user = user();
        try (var c = Database.connect();
             var ps = c.prepareStatement("UPDATE access_token SET expires_at = now() - interval '1 second' WHERE account_id = ?")) {
            ps.setLong(1, Long.parseLong(user.id()));
            assertEquals(1, ps.executeUpdate());
        }
        assertLoginRefused(user.token(), "web", "e", "invalid-token");

        User other = user();
        assertEquals(204, http().delete("api/v1/auth/tokens/current", other.auth()).statusCode());
        assertLoginRefused(other.token(), "web", "r", "invalid-token");
    }

    @Test
    void anOversizedFrameClosesTheConnectionAsTooBig() throws Exception {
        WsDevice d = connect();
        d.send("{\"v\":1,\"type\":\"hello\",\"pad\":\"" + "x".repeat(20_000) + "\"}");
        assertEquals("frame-too-large", d.expect("error").getString("code"));
        assertEquals(1009, d.closeCode());
    }

    /** docs/protocol.md's frame limit with the suite's (default) ROOST_CHAT_MAX_BODY_BYTES: 16,384 + 2,048 UTF-16 code units. */
    static final int FRAME_LIMIT = 18_432;

    /** A hello of exactly {@code length} UTF-16 code units, padded with {@code pad} (one or two units). */
    static String helloOfLength(int length, String pad) {
        String start = "{\"v\":1,\"type\":\"hello\",\"deviceId\":\"limit\",\"deviceType\":\"web\",\"pad\":\"";
        int room = length - start.length() - 2;
        String padded = start + pad.repeat(room / pad.length()) + "x".repeat(room % pad.length()) + "\"}";
        assertEquals(length, padded.length());
        return padded;
    }

    @Test
    void theFrameLimitIsTheLargestBodyAndTwoKilobytesInUtf16CodeUnits() throws Exception {
        WsDevice atLimit = connect();
        atLimit.send(helloOfLength(FRAME_LIMIT, "x"));
        assertEquals(1, atLimit.expect("hello").getInt("protocolVersion"), "a frame of the limit is read and answered");
        atLimit.bye();
        // one unit more is refused; an emoji is two units (a surrogate pair): far fewer characters than the limit, refused too
        String emoji = "\uD83D\uDE00";
        assertTrue(helloOfLength(FRAME_LIMIT + 1, emoji).codePointCount(0, FRAME_LIMIT + 1) < FRAME_LIMIT - 9_000);
        for (String pad : List.of("x", emoji)) {
            WsDevice over = connect();
            over.send(helloOfLength(FRAME_LIMIT + 1, pad));
            JsonObject error = over.expect("error");
            assertEquals("frame-too-large", error.getString("code"));
            assertEquals("A frame has at most " + FRAME_LIMIT + " characters.", error.getString("message"));
            assertEquals(1009, over.closeCode());
        }
    }

    /**
     * A login that waits for the database holds a worker thread, not its connection's IO thread.
     * With the route table locked, 16 logins wait for their commit (more than the node's IO
     * threads: two per core), and a new connection still gets its hello answered at once. When the
     * lock goes, every waiting login is answered.
     */
    @Test
    void loginsWaitingForTheDatabaseLeaveTheIoThreadsFree() throws Exception {
        List<User> users = new ArrayList<>();
        List<WsDevice> waiting = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            users.add(user());
            waiting.add(WsDevice.hello(baseUrl, "android", "blocked-" + i));
        }
        try (var lock = Database.connect(); var watch = Database.connect()) {
            lock.setAutoCommit(false);
            lock.createStatement().execute("LOCK TABLE presence_device_route IN EXCLUSIVE MODE");
            try {
                for (int i = 0; i < waiting.size(); i++) {
                    waiting.get(i).sendLogin(users.get(i).token());
                }
                Wait.until("a login waits on the locked route table", Duration.ofSeconds(10), () -> {
                    try (var rs = watch.createStatement().executeQuery("""
                            SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%presence_device_route%'""")) {
                        rs.next();
                        return rs.getInt(1) > 0;
                    }
                });
                WsDevice fresh = connect();
                fresh.sendHello("web", "free");
                JsonObject answer = fresh.frames.poll(5, TimeUnit.SECONDS);
                assertNotNull(answer, "a hello while logins wait for the database is answered");
                assertEquals("hello", answer.getString("type"));
                for (WsDevice d : waiting) {
                    assertTrue(d.frames.isEmpty(), "no login is answered before its commit");
                }
                fresh.bye();
            } finally {
                lock.rollback();
            }
        }
        for (WsDevice d : waiting) {
            d.expect("login");
            d.bye();
        }
    }
}
