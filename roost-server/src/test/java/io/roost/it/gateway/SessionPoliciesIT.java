package io.roost.it.gateway;

import static io.roost.it.Http.ADMIN;
import static io.roost.it.Http.okJson;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.roost.it.DeployedRoost;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import io.roost.it.Wait;
import io.roost.it.WsDevice;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The session policies other than kick-old (DeviceSessionIT): the suite's server runs with
 * ROOST_SESSION_POLICIES=desktop=refuse-new,pad=allow-many (pom.xml), so a second desktop of a user
 * is refused and pads sit side by side.
 */
class SessionPoliciesIT extends DeployedRoost {

    User user() throws Exception {
        return TestUsers.create(baseUrl, "sp-");
    }

    /** The user's online devices, as deviceType/deviceId, in the order presence lists them. */
    List<String> devices(User user) {
        return okJson(http().get("api/v1/presence/users/" + user.id(), ADMIN)).getJsonArray("devices").stream()
                .map(JsonObject.class::cast).map(d -> d.getString("deviceType") + "/" + d.getString("deviceId")).sorted().toList();
    }

    /** The device is still logged in: a heartbeat is its next frame (no kick came before it). */
    static void assertStillLoggedIn(WsDevice d) throws Exception {
        d.heartbeat();
        assertEquals("heartbeat", d.next().getString("type"));
    }

    @Test
    void aSecondDesktopIsRefusedAndTheFirstStays() throws Exception {
        User user = user();
        WsDevice first = WsDevice.login(baseUrl, user.token(), "desktop", "desk-1");
        WsDevice second = WsDevice.hello(baseUrl, "desktop", "desk-2");
        second.sendLogin(user.token());
        assertEquals("login-refused", second.expect("error").getString("code"));
        assertEquals(1008, second.closeCode());
        assertStillLoggedIn(first);
        assertEquals(List.of("desktop/desk-1"), devices(user));
        assertFalse(first.received("kick"));

        // Once the first has logged out, the slot is free for another.
        first.send("{\"v\":1,\"type\":\"logout\"}");
        first.expect("logout");
        WsDevice.login(baseUrl, user.token(), "desktop", "desk-2").bye();
    }

    @Test
    void twoPadsStayLoggedInSideBySide() throws Exception {
        User user = user();
        WsDevice one = WsDevice.login(baseUrl, user.token(), "pad", "pad-1");
        WsDevice two = WsDevice.login(baseUrl, user.token(), "pad", "pad-2");
        assertStillLoggedIn(one);
        assertStillLoggedIn(two);
        assertEquals(List.of("pad/pad-1", "pad/pad-2"), devices(user));

        one.send("{\"v\":1,\"type\":\"logout\"}");
        one.expect("logout");
        assertEquals(List.of("pad/pad-2"), devices(user), "the other pad's session stays");
        assertStillLoggedIn(two);
        two.bye();
        Wait.until("the last pad's session ended", Duration.ofSeconds(10), () -> devices(user).isEmpty());
    }
}
