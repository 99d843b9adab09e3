package io.roost.it.gateway;

import static io.roost.it.Http.ADMIN;
import static io.roost.it.Http.okJson;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.DeployedRoost;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import io.roost.it.Wait;
import io.roost.it.WsDevice;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The device handshake's order and its hello's fields (docs/protocol.md): hello exactly once and
 * first, then login exactly once. Each violation is an error frame, then close 1008.
 */
class HandshakeIT extends DeployedRoost {

    User user() throws Exception {
        return TestUsers.create(baseUrl, "hs-");
    }

    boolean online(User user) {
        return okJson(http().get("api/v1/presence/users/" + user.id(), ADMIN)).getBoolean("online");
    }

    static void assertViolation(WsDevice d, String code) throws Exception {
        assertEquals(code, d.expect("error").getString("code"));
        assertEquals(1008, d.closeCode(), code);
    }

    static String hello(String fields) {
        return "{\"v\":1,\"type\":\"hello\",\"deviceType\":\"web\"" + fields + "}";
    }

    @Test
    void aSecondHelloIsUnexpected() throws Exception {
        WsDevice d = WsDevice.hello(baseUrl, "web", "twice");
        d.sendHello("web", "twice");
        assertViolation(d, "unexpected-hello");
    }

    /** A violation after login closes the connection, and so ends its session. */
    @Test
    void aHelloAfterLoginIsUnexpectedAndEndsTheSession() throws Exception {
        User user = user();
        WsDevice d = WsDevice.login(baseUrl, user.token(), "android", "hello-again");
        assertTrue(online(user));
        d.sendHello("android", "hello-again");
        assertViolation(d, "unexpected-hello");
        Wait.until("the closed connection's session ended", Duration.ofSeconds(10), () -> !online(user));
    }

    @Test
    void aSecondLoginIsRefusedAsAlreadyLoggedInAndEndsTheSession() throws Exception {
        User user = user();
        WsDevice d = WsDevice.login(baseUrl, user.token(), "android", "login-again");
        assertTrue(online(user));
        d.sendLogin(user.token());
        assertViolation(d, "already-logged-in");
        Wait.until("the closed connection's session ended", Duration.ofSeconds(10), () -> !online(user));
    }

    @Test
    void onlyProtocolVersionOneIsSpoken() throws Exception {
        for (String version : List.of("0", "2")) {
            WsDevice d = WsDevice.connect(baseUrl);
            d.send(hello(",\"deviceId\":\"v" + version + "\",\"protocolVersion\":" + version));
            assertViolation(d, "unsupported-protocol");
        }
        WsDevice unstated = WsDevice.connect(baseUrl); // the field is optional
        unstated.send(hello(",\"deviceId\":\"v-unstated\""));
        assertEquals(1, unstated.expect("hello").getInt("protocolVersion"));
        unstated.bye();
    }

    /** The suite configures the default types (android, ios, web, desktop, pad); any case will do. */
    @Test
    void aDeviceTypeIsOneOfTheConfiguredOnes() throws Exception {
        for (String type : List.of("toaster", "tv", "")) {
            WsDevice d = WsDevice.connect(baseUrl);
            d.sendHello(type, "t");
            assertViolation(d, "unknown-device-type");
        }
        WsDevice.hello(baseUrl, "Desktop", "t").bye();
    }

    @Test
    void aDeviceIdIsRequiredAndAtMost128Characters() throws Exception {
        // none, empty, blank, one over
        for (String field : List.of("", ",\"deviceId\":\"\"", ",\"deviceId\":\"   \"", ",\"deviceId\":\"" + "d".repeat(129) + "\"")) {
            WsDevice d = WsDevice.connect(baseUrl);
            d.send(hello(field));
            assertViolation(d, "invalid-device-id");
        }
        User user = user();
        WsDevice longest = WsDevice.login(baseUrl, user.token(), "web", "d".repeat(128));
        assertEquals("d".repeat(128), okJson(http().get("api/v1/presence/users/" + user.id(), ADMIN))
                .getJsonArray("devices").getJsonObject(0).getString("deviceId"));
        longest.bye();
    }
}
