package io.roost.it.gateway;

import static io.roost.it.Http.ADMIN_PASSWORD;
import static io.roost.it.Http.ADMIN_USER;
import static io.roost.it.Http.basic;
import static io.roost.it.Http.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.Deployments;
import io.roost.it.Http;
import io.roost.it.LoginLog;
import io.roost.it.WsDevice;
import jakarta.json.JsonObject;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Devices on real WebSockets: hello, login, heartbeat, logout, kick-out, timeout, bad frames. */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class DeviceSessionIT {

    static final String ADMIN = basic(ADMIN_USER, ADMIN_PASSWORD);

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.roost();
    }

    @ArquillianResource
    URL baseUrl;

    WsDevice connect() throws Exception {
        return WsDevice.connect(baseUrl);
    }

    WsDevice login(String token, String deviceType, String deviceId) throws Exception {
        return WsDevice.login(baseUrl, token, deviceType, deviceId);
    }

    /** A fresh user account and a bearer token for it. */
    String[] user() throws Exception {
        Http http = new Http(baseUrl.toURI());
        String name = "dev-" + UUID.randomUUID().toString().substring(0, 10);
        var created = http.post("api/v1/accounts", ADMIN, "{\"username\":\"" + name
                + "\",\"password\":\"long enough password\",\"roles\":[\"user\"]}");
        assertEquals(201, created.statusCode(), created.body());
        var token = http.post("api/v1/auth/tokens", basic(name, "long enough password"), "{}");
        return new String[] {json(created).getString("id"), json(token).getString("token")};
    }

    JsonObject presence(String uid) throws Exception {
        return json(new Http(baseUrl.toURI()).get("api/v1/presence/users/" + uid, ADMIN));
    }

    @Test
    void helloLoginHeartbeatLogout() throws Exception {
        String[] user = user();
        WsDevice d = login(user[1], "android", "phone-1");
        d.send("{\"v\":1,\"type\":\"heartbeat\"}");
        d.expect("heartbeat");
        JsonObject online = presence(user[0]);
        assertTrue(online.getBoolean("online"));
        assertEquals("android", online.getJsonArray("devices").getJsonObject(0).getString("deviceType"));
        assertEquals("phone-1", online.getJsonArray("devices").getJsonObject(0).getString("deviceId"));
        d.send("{\"v\":1,\"type\":\"logout\"}");
        d.expect("logout");
        assertEquals(1000, d.closeCode());
        assertFalse(presence(user[0]).getBoolean("online"));
        LoginLog.await(baseUrl, user[0], List.of("logout", "login"));
        // Logout keeps the token (seed 001): the device can log in again with it.
        login(user[1], "android", "phone-1").socket.sendClose(1000, "bye").join();
    }

    @Test
    void aSecondLoginOfTheSameTypeKicksTheFirstAndOtherTypesStay() throws Exception {
        String[] user = user();
        WsDevice phone = login(user[1], "android", "phone-old");
        WsDevice tablet = login(user[1], "ios", "ipad");
        WsDevice newPhone = login(user[1], "android", "phone-new");
        JsonObject kick = phone.expect("kick");
        assertEquals("replaced_by_new_login", kick.getString("reason"));
        assertEquals(1008, phone.closeCode());
        tablet.send("{\"v\":1,\"type\":\"heartbeat\"}");
        tablet.expect("heartbeat");
        JsonObject p = presence(user[0]);
        assertEquals(2, p.getJsonArray("devices").size(), p.toString());
        assertTrue(p.toString().contains("phone-new") && !p.toString().contains("phone-old"), p.toString());
        newPhone.socket.sendClose(1000, "bye").join();
        tablet.socket.sendClose(1000, "bye").join();
        LoginLog.await(baseUrl, user[0], List.of("kick", "login"));
    }

    @Test
    void twentyConcurrentLoginsLeaveExactlyOneSession() throws Exception {
        String[] user = user();
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
                d.send("{\"v\":1,\"type\":\"login\",\"token\":\"" + user[1] + "\"}");
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
        JsonObject p = presence(user[0]);
        assertEquals(1, p.getJsonArray("devices").size(), p.toString());
        WsDevice survivor = survivors.get(0);
        survivor.send("{\"v\":1,\"type\":\"heartbeat\"}");
        JsonObject frame;
        do {
            frame = survivor.next(); // skip its own login answer
        } while (!frame.getString("type").equals("heartbeat"));
        survivor.socket.sendClose(1000, "bye").join();
    }

    @Test
    void forgedTokenIsRefusedWithPolicyViolation() throws Exception {
        WsDevice d = connect();
        d.send("{\"v\":1,\"type\":\"hello\",\"deviceId\":\"x\",\"deviceType\":\"android\"}");
        d.expect("hello");
        d.send("{\"v\":1,\"type\":\"login\",\"token\":\"rst_forged\"}");
        assertEquals("invalid-token", d.expect("error").getString("code"));
        assertEquals(1008, d.closeCode());
    }

    @Test
    void badFramesGetAnErrorAndProtocolViolationsAClose() throws Exception {
        WsDevice notJson = connect();
        notJson.send("hello?");
        assertEquals("malformed-frame", notJson.expect("error").getString("code"));
        assertEquals(1008, notJson.closeCode());

        WsDevice early = connect();
        early.send("{\"v\":1,\"type\":\"heartbeat\"}");
        assertEquals("login-first", early.expect("error").getString("code"));
        assertEquals(1008, early.closeCode());

        WsDevice loginFirst = connect();
        loginFirst.send("{\"v\":1,\"type\":\"login\",\"token\":\"x\"}");
        assertEquals("hello-first", loginFirst.expect("error").getString("code"));

        String[] user = user();
        WsDevice d = login(user[1], "desktop", "pc");
        d.send("{\"v\":1,\"type\":\"teleport\"}");
        assertEquals("unknown-type", d.expect("error").getString("code"));
        d.send("{\"v\":1,\"type\":\"heartbeat\"}");
        d.expect("heartbeat"); // an unknown type is not a violation: still connected
        d.socket.sendClose(1000, "bye").join();
    }

    @Test
    void aSilentDeviceTimesOutAndIsKicked() throws Exception {
        String[] user = user();
        WsDevice d = login(user[1], "pad", "tab"); // ROOST_SESSION_HEARTBEAT_TIMEOUT is 8 s in the tests
        JsonObject kick = d.frames.poll(40, TimeUnit.SECONDS);
        assertNotNull(kick, "kicked within 40 s");
        assertEquals("kick", kick.getString("type"));
        assertEquals("heartbeat_timeout", kick.getString("reason"));
        assertEquals(1008, d.closeCode());
        assertFalse(presence(user[0]).getBoolean("online"));
    }

    @Test
    void bulkPresenceQuery() throws Exception {
        String[] a = user();
        String[] b = user();
        WsDevice d = login(a[1], "web", "browser");
        var r = new Http(baseUrl.toURI()).post("api/v1/presence/users:query", ADMIN,
                "{\"uids\":[\"" + a[0] + "\",\"" + b[0] + "\"]}");
        assertEquals(200, r.statusCode(), r.body());
        var users = json(r).getJsonArray("users");
        assertTrue(users.getJsonObject(0).getBoolean("online"));
        assertFalse(users.getJsonObject(1).getBoolean("online"));
        assertEquals(400, new Http(baseUrl.toURI()).post("api/v1/presence/users:query", ADMIN, "{\"uids\":[]}").statusCode());
        d.socket.sendClose(1000, "bye").join();
    }

    @Test
    void gatewayStatsCountConnectionsAndLoginBatches() throws Exception {
        String[] a = user();
        WsDevice d = login(a[1], "web", "browser");
        var r = new Http(baseUrl.toURI()).get("api/v1/gateway/stats", ADMIN);
        assertEquals(200, r.statusCode(), r.body());
        var stats = json(r);
        assertTrue(stats.getInt("connections") >= 1, r.body());
        var logins = stats.getJsonObject("logins");
        assertTrue(logins.getJsonNumber("attempts").longValue() >= 1, r.body());
        assertTrue(logins.getJsonNumber("batches").longValue() >= 1, r.body());
        assertTrue(logins.getJsonNumber("batches").longValue() <= logins.getJsonNumber("attempts").longValue(), r.body());
        assertTrue(logins.getJsonNumber("largestBatch").longValue() >= 1, r.body());
        assertEquals(401, new Http(baseUrl.toURI()).get("api/v1/gateway/stats", null).statusCode(), "not without credentials");
        d.socket.sendClose(1000, "bye").join();
    }

    @Test
    void disablingAnAccountKicksEveryDeviceAtOnce() throws Exception {
        String[] user = user();
        WsDevice phone = login(user[1], "android", "p");
        WsDevice browser = login(user[1], "web", "b");
        var r = new Http(baseUrl.toURI()).post("api/v1/accounts/" + user[0] + "/disable", ADMIN, "");
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("account_disabled", phone.expect("kick").getString("reason"));
        assertEquals("account_disabled", browser.expect("kick").getString("reason"));
        assertEquals(1008, phone.closeCode());
        assertEquals(1008, browser.closeCode());
        assertFalse(presence(user[0]).getBoolean("online"));
        // Its tokens are revoked: recovering the account does not bring them back.
        assertEquals(200, new Http(baseUrl.toURI()).post("api/v1/accounts/" + user[0] + "/recover", ADMIN, "").statusCode());
        WsDevice again = connect();
        again.send("{\"v\":1,\"type\":\"hello\",\"deviceId\":\"p\",\"deviceType\":\"android\"}");
        again.expect("hello");
        again.send("{\"v\":1,\"type\":\"login\",\"token\":\"" + user[1] + "\"}");
        assertEquals("invalid-token", again.expect("error").getString("code"));
        assertEquals(1008, again.closeCode());
        LoginLog.await(baseUrl, user[0], List.of("kick"));
    }

    @Test
    void aDeviceTokenOnlyLogsInItsOwnDevice() throws Exception {
        Http http = new Http(baseUrl.toURI());
        String name = "bound-" + UUID.randomUUID().toString().substring(0, 8);
        assertEquals(201, http.post("api/v1/registrations", null, "{\"username\":\"" + name
                + "\",\"password\":\"long enough password\"}").statusCode());
        var issued = http.post("api/v1/auth/login", null, "{\"login\":\"" + name + "\",\"password\":\"long enough password\","
                + "\"deviceType\":\"android\",\"deviceId\":\"own-phone\"}");
        assertEquals(200, issued.statusCode(), issued.body());
        String token = json(issued).getString("token");
        WsDevice other = connect();
        other.send("{\"v\":1,\"type\":\"hello\",\"deviceId\":\"stolen-into\",\"deviceType\":\"android\"}");
        other.expect("hello");
        other.send("{\"v\":1,\"type\":\"login\",\"token\":\"" + token + "\"}");
        assertEquals("token-device-mismatch", other.expect("error").getString("code"));
        assertEquals(1008, other.closeCode());
        login(token, "android", "own-phone").socket.sendClose(1000, "bye").join();
    }

    @Test
    void expiredAndRevokedTokensAreRefused() throws Exception {
        String[] user = user();
        try (var c = java.sql.DriverManager.getConnection(System.getProperty("roost.test.db.url"), "roost", "roost");
             var ps = c.prepareStatement("UPDATE access_token SET expires_at = now() - interval '1 second' WHERE account_id = ?")) {
            ps.setLong(1, Long.parseLong(user[0]));
            assertEquals(1, ps.executeUpdate());
        }
        WsDevice expired = connect();
        expired.send("{\"v\":1,\"type\":\"hello\",\"deviceId\":\"e\",\"deviceType\":\"web\"}");
        expired.expect("hello");
        expired.send("{\"v\":1,\"type\":\"login\",\"token\":\"" + user[1] + "\"}");
        assertEquals("invalid-token", expired.expect("error").getString("code"));
        assertEquals(1008, expired.closeCode());

        String[] other = user();
        assertEquals(204, new Http(baseUrl.toURI()).delete("api/v1/auth/tokens/current", Http.bearer(other[1])).statusCode());
        WsDevice revoked = connect();
        revoked.send("{\"v\":1,\"type\":\"hello\",\"deviceId\":\"r\",\"deviceType\":\"web\"}");
        revoked.expect("hello");
        revoked.send("{\"v\":1,\"type\":\"login\",\"token\":\"" + other[1] + "\"}");
        assertEquals("invalid-token", revoked.expect("error").getString("code"));
        assertEquals(1008, revoked.closeCode());
    }

    @Test
    void anOversizedFrameClosesTheConnectionAsTooBig() throws Exception {
        WsDevice d = connect();
        d.send("{\"v\":1,\"type\":\"hello\",\"pad\":\"" + "x".repeat(20_000) + "\"}");
        assertEquals("frame-too-large", d.expect("error").getString("code"));
        assertEquals(1009, d.closeCode());
    }
}
