package io.roost.it;

import static io.roost.it.Http.ADMIN;
import static io.roost.it.Http.json;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URL;
import java.util.UUID;

/** Throw-away users over the real API, each named {@code prefix} + a random suffix. */
public final class TestUsers {

    public static final String PASSWORD = "long enough password";

    /** A user: id, user name, and a token (bound to a device, or to none). */
    public record User(String id, String name, String token) {
        public User {
            LogSecrets.record(token);
        }

        /** The token as an Authorization header. */
        public String auth() {
            return Http.bearer(token);
        }
    }

    private TestUsers() {
    }

    /** Registers as an app does, with {@link #PASSWORD}; the token is bound to the web device "w". */
    public static User register(URL base, String prefix) throws Exception {
        return register(base, prefix, PASSWORD, "web", "w");
    }

    /**
     * Registers with a user name only, the token bound to this device: no password to hash (210,000
     * PBKDF2 rounds), for the tests that make many users and never sign in with one.
     */
    public static User registerWithoutPassword(URL base, String prefix, String deviceType, String deviceId) throws Exception {
        return register(base, prefix, null, deviceType, deviceId);
    }

    private static User register(URL base, String prefix, String password, String deviceType, String deviceId) throws Exception {
        String name = prefix + UUID.randomUUID().toString().substring(0, 10);
        var r = new Http(base).post("api/v1/registrations", null, "{\"username\":\"" + name + "\""
                + (password == null ? "" : ",\"password\":\"" + password + "\"")
                + ",\"deviceType\":\"" + deviceType + "\",\"deviceId\":\"" + deviceId + "\"}");
        assertEquals(201, r.statusCode(), r.body());
        return new User(json(r).getJsonObject("account").getString("id"), name, json(r).getJsonObject("token").getString("token"));
    }

    /**
     * An account the admin creates (role user, {@link #PASSWORD}), with a token issued by Basic
     * sign-in: bound to no device, so any device may log in with it.
     */
    public static User create(URL base, String prefix) throws Exception {
        return create(base, prefix, "user");
    }

    /** An enterprise back end's account (role service), with a token as {@link #create(URL, String)} gives one. */
    public static User service(URL base, String prefix) throws Exception {
        return create(base, prefix, "service");
    }

    private static User create(URL base, String prefix, String role) throws Exception {
        String name = prefix + UUID.randomUUID().toString().substring(0, 10);
        var created = new Http(base).post("api/v1/accounts", ADMIN, "{\"username\":\"" + name
                + "\",\"password\":\"" + PASSWORD + "\",\"roles\":[\"" + role + "\"]}");
        assertEquals(201, created.statusCode(), created.body());
        var token = new Http(base).post("api/v1/auth/tokens", Http.basic(name, PASSWORD), "{}");
        assertEquals(201, token.statusCode(), token.body());
        return new User(json(created).getString("id"), name, json(token).getString("token"));
    }

    /**
     * Registers by e-mail as an app does, in two stages: asks for a code, then sends the one {@code mail}
     * received with {@code password}. The address must be new to {@code mail}. The account's id.
     */
    public static String registerByEmail(URL base, Mailbox mail, String email, String password) throws Exception {
        Http http = new Http(base);
        var requested = http.post("api/v1/registrations", null, "{\"stage\":\"request\",\"email\":\"" + email + "\"}");
        assertEquals(202, requested.statusCode(), requested.body());
        var created = http.post("api/v1/registrations", null, "{\"stage\":\"validate\",\"email\":\"" + email
                + "\",\"code\":\"" + mail.code(email, 1) + "\",\"password\":\"" + password + "\"}");
        assertEquals(201, created.statusCode(), created.body());
        return json(created).getJsonObject("account").getString("id");
    }

    /** Signs in with a password for one device, as an app does: the token is bound to that device. */
    public static String login(URL base, String login, String password, String deviceType, String deviceId) throws Exception {
        var r = new Http(base).post("api/v1/auth/login", null, "{\"login\":\"" + login + "\",\"password\":\"" + password
                + "\",\"deviceType\":\"" + deviceType + "\",\"deviceId\":\"" + deviceId + "\"}");
        assertEquals(200, r.statusCode(), r.body());
        return json(r).getString("token");
    }
}
