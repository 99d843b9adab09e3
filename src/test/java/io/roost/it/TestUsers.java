package io.roost.it;

import static io.roost.it.Http.json;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URL;
import java.util.UUID;

/** Registers throw-away users over the real API (anonymous registration with a password and a web device token). */
public final class TestUsers {

    public static final String PASSWORD = "long enough password";

    /** A registered user: id, user name, and a token bound to device (web, w). */
    public record Registered(String id, String name, String token) {
        public String auth() {
            return Http.bearer(token);
        }
    }

    private TestUsers() {
    }

    public static Registered register(URL base, String prefix) throws Exception {
        String name = prefix + UUID.randomUUID().toString().substring(0, 10);
        var r = new Http(base.toURI()).post("api/v1/registrations", null, "{\"username\":\"" + name + "\",\"password\":\""
                + PASSWORD + "\",\"deviceType\":\"web\",\"deviceId\":\"w\"}");
        assertEquals(201, r.statusCode(), r.body());
        return new Registered(json(r).getJsonObject("account").getString("id"), name, json(r).getJsonObject("token").getString("token"));
    }
}
