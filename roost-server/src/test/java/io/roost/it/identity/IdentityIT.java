package io.roost.it.identity;

import static io.roost.it.Http.ADMIN;
import static io.roost.it.Http.bearer;
import static io.roost.it.Http.json;
import static io.roost.it.Http.ok;
import static io.roost.it.Http.okJson;
import static io.roost.it.Problems.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.Database;
import io.roost.it.DeployedRoost;
import io.roost.it.Mailbox;
import io.roost.it.TestUsers;
import io.roost.it.TopicEvents;
import jakarta.json.JsonObject;
import jakarta.mail.Message;
import jakarta.mail.internet.MimeMessage;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Registration, codes, login, reset, profile, address change, disable/recover/unregister and user
 * search against the deployed server. Codes arrive by real mail (GreenMail's SMTP server in this
 * JVM) and as real roost-sms events on the dev RocketMQ broker.
 */
@ResourceLock(Mailbox.SMTP_PORT)
class IdentityIT extends DeployedRoost {

    static final String PASSWORD = "correct horse battery";

    @RegisterExtension
    static final Mailbox mail = new Mailbox();

    /** The roost-sms events, by phone number. */
    @RegisterExtension
    static final TopicEvents sms = new TopicEvents("roost-sms", "phone");

    static String unique(String prefix) {
        return prefix + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    }

    static String uniquePhone() {
        return "+1555" + String.format("%07d", (long) (Math.random() * 10_000_000));
    }

    String registerByEmail(String email) throws Exception {
        return TestUsers.registerByEmail(baseUrl, mail, email, PASSWORD);
    }

    String login(String login, String password) throws Exception {
        return TestUsers.login(baseUrl, login, password, "android", "it-phone");
    }

    @Test
    void anonymousRegistrationNeedsNoCodeAndNamesAreUnique() throws Exception {
        String name = unique("anon_");
        var r = http().post("api/v1/registrations", null, "{\"username\":\"" + name + "\",\"password\":\"" + PASSWORD
                + "\",\"deviceType\":\"ios\",\"deviceId\":\"iphone-1\"}");
        assertEquals(201, r.statusCode(), r.body());
        JsonObject body = json(r);
        assertEquals(name, body.getJsonObject("account").getString("username"));
        assertEquals("ios", body.getJsonObject("token").getString("deviceType"));
        var me = http().get("api/v1/accounts/me", bearer(body.getJsonObject("token").getString("token")));
        assertEquals(200, me.statusCode(), me.body());
        assertEquals(body.getJsonObject("account").getString("id"), json(me).getString("id"));

        assertProblem(http().post("api/v1/registrations", null, "{\"username\":\"" + name.toUpperCase() + "\"}"),
                409, "username-taken");
        assertProblem(http().post("api/v1/registrations", null, "{\"username\":\"no spaces allowed\"}"),
                400, "validation-failed");
        // A device name the server does not know: refused before anything is created.
        String other = unique("anon_");
        assertProblem(http().post("api/v1/registrations", null, "{\"username\":\"" + other
                + "\",\"deviceType\":\"toaster\",\"deviceId\":\"t\"}"), 400, "unknown-device-type");
        var search = http().get("api/v1/users?username=" + other, ADMIN);
        assertEquals(200, search.statusCode(), search.body());
        assertTrue(json(search).getJsonArray("items").isEmpty(), search.body());
    }

    @Test
    void emailRegistrationIsTwoStageWithACodeSentByMail() throws Exception {
        String email = unique("reg.") + "@example.org";
        var requested = http().post("api/v1/registrations", null, "{\"stage\":\"request\",\"email\":\"" + email.toUpperCase() + "\"}");
        assertEquals(202, requested.statusCode(), requested.body());
        assertEquals("validate", json(requested).getString("stage"));
        assertEquals(email, json(requested).getString("address"), "addresses are normalized to lower case");
        String code = mail.code(email, 1);
        // Asking again at once is refused (no mail bombing); the code already sent stays valid.
        var again = http().post("api/v1/registrations", null, "{\"stage\":\"request\",\"email\":\"" + email + "\"}");
        assertProblem(again, 429, "code-recently-sent");
        assertTrue(again.headers().firstValue("Retry-After").isPresent());

        String wrong = code.equals("00000") ? "11111" : "00000";
        assertProblem(http().post("api/v1/registrations", null, "{\"stage\":\"validate\",\"email\":\"" + email
                + "\",\"code\":\"" + wrong + "\",\"password\":\"" + PASSWORD + "\"}"), 400, "invalid-code");
        var created = http().post("api/v1/registrations", null, "{\"stage\":\"validate\",\"email\":\"" + email
                + "\",\"code\":\"" + code + "\",\"password\":\"" + PASSWORD + "\"}");
        assertEquals(201, created.statusCode(), created.body());
        String id = json(created).getJsonObject("account").getString("id");
        assertEquals("u" + id, json(created).getJsonObject("account").getString("username"));
        // The code is spent; the address is taken: log in or reset instead.
        assertProblem(http().post("api/v1/registrations", null, "{\"stage\":\"validate\",\"email\":\"" + email
                + "\",\"code\":\"" + code + "\",\"password\":\"" + PASSWORD + "\"}"), 400, "invalid-code");
        var taken = http().post("api/v1/registrations", null, "{\"stage\":\"request\",\"email\":\"" + email + "\"}");
        assertProblem(taken, 409, "already-registered");
        assertTrue(json(taken).getString("detail").contains("reset"), taken.body());

        String token = login(email, PASSWORD);
        assertEquals(id, json(http().get("api/v1/accounts/me", bearer(token))).getString("id"));
    }

    @Test
    void phoneRegistrationPublishesTheCodeAsAnSmsEvent() throws Exception {
        String phone = uniquePhone();
        assertEquals(202, http().post("api/v1/registrations", null, "{\"stage\":\"request\",\"phone\":\"" + phone + "\"}")
                .statusCode());
        JsonObject event = sms.events(phone).poll(60, TimeUnit.SECONDS);
        assertNotNull(event, "no roost-sms event for " + phone);
        assertEquals("register", event.getString("purpose"));
        var created = http().post("api/v1/registrations", null, "{\"stage\":\"validate\",\"phone\":\"" + phone
                + "\",\"code\":\"" + event.getString("code") + "\",\"username\":\"" + unique("ph_")
                + "\",\"password\":\"" + PASSWORD + "\"}");
        assertEquals(201, created.statusCode(), created.body());
        assertEquals(phone, json(created).getJsonObject("account").getString("phone"));
        login(phone, PASSWORD);
    }

    @Test
    void fiveWrongCodesLockTheAddressEvenForTheRightCode() throws Exception {
        String email = unique("lock.") + "@example.org";
        ok(http().post("api/v1/registrations", null, "{\"stage\":\"request\",\"email\":\"" + email + "\"}"));
        String code = mail.code(email, 1);
        String wrong = code.equals("00000") ? "11111" : "00000";
        for (int i = 0; i < 5; i++) {
            assertProblem(http().post("api/v1/registrations", null, "{\"stage\":\"validate\",\"email\":\"" + email
                    + "\",\"code\":\"" + wrong + "\"}"), 400, "invalid-code");
        }
        var locked = http().post("api/v1/registrations", null, "{\"stage\":\"validate\",\"email\":\"" + email
                + "\",\"code\":\"" + code + "\"}");
        assertProblem(locked, 429, "too-many-attempts");
        long retryAfter = Long.parseLong(locked.headers().firstValue("Retry-After").orElseThrow());
        assertTrue(retryAfter > 800 && retryAfter <= 900, "locked for ~15 min, got " + retryAfter);
        assertProblem(http().post("api/v1/registrations", null, "{\"stage\":\"request\",\"email\":\"" + email + "\"}"),
                429, "too-many-attempts");
        assertTrue(http().get("api/v1/users?email=" + email, ADMIN).body().contains("[]"));
    }

    @Test
    void parallelGuessesCannotGetPastTheLimit() throws Exception {
        String email = unique("race.") + "@example.org";
        ok(http().post("api/v1/registrations", null, "{\"stage\":\"request\",\"email\":\"" + email + "\"}"));
        String code = mail.code(email, 1);
        ExecutorService pool = Executors.newFixedThreadPool(20);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<HttpResponse<String>>> results = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String guess = String.format("%05d", (Integer.parseInt(code) + 1 + i) % 100_000);
            results.add(pool.submit(() -> {
                start.await();
                return http().post("api/v1/registrations", null, "{\"stage\":\"validate\",\"email\":\"" + email
                        + "\",\"code\":\"" + guess + "\"}");
            }));
        }
        start.countDown();
        int checked = 0;
        int refused = 0;
        for (Future<HttpResponse<String>> f : results) {
            HttpResponse<String> r = f.get(120, TimeUnit.SECONDS);
            String type = json(r).getString("type");
            if (r.statusCode() == 400 && type.endsWith(":invalid-code")) {
                checked++;
            } else if (r.statusCode() == 429 && type.endsWith(":too-many-attempts")) {
                refused++;
            } else {
                throw new AssertionError("unexpected answer " + r.statusCode() + " " + r.body());
            }
        }
        pool.shutdown();
        assertEquals(5, checked, "exactly five guesses may be checked");
        assertEquals(15, refused);
    }

    @Test
    void passwordResetByCodeRevokesEveryToken() throws Exception {
        String email = unique("reset.") + "@example.org";
        registerByEmail(email);
        String oldToken = login(email, PASSWORD);
        // An unknown address gets the same answer and no mail.
        String nobody = unique("nobody.") + "@example.org";
        assertEquals(202, http().post("api/v1/auth/password-resets", null, "{\"stage\":\"request\",\"email\":\"" + nobody + "\"}")
                .statusCode());
        assertEquals(202, http().post("api/v1/auth/password-resets", null, "{\"stage\":\"request\",\"email\":\"" + email + "\"}")
                .statusCode());
        String code = mail.code(email, 2);
        assertProblem(http().post("api/v1/auth/password-resets", null, "{\"stage\":\"validate\",\"email\":\"" + email
                + "\",\"code\":\"" + code + "\",\"newPassword\":\"short\"}"), 400, "weak-password");
        assertEquals(204, http().post("api/v1/auth/password-resets", null, "{\"stage\":\"validate\",\"email\":\"" + email
                + "\",\"code\":\"" + code + "\",\"newPassword\":\"a brand new password\"}").statusCode());
        assertProblem(http().get("api/v1/accounts/me", bearer(oldToken)), 401, "invalid-credentials");
        assertProblem(http().post("api/v1/auth/login", null, "{\"login\":\"" + email + "\",\"password\":\"" + PASSWORD
                + "\",\"deviceType\":\"web\",\"deviceId\":\"w\"}"), 401, "invalid-credentials");
        login(email, "a brand new password");
        assertFalse(mail.received().isEmpty());
        for (MimeMessage m : mail.received()) {
            assertNotEquals(nobody, m.getRecipients(Message.RecipientType.TO)[0].toString());
        }
    }

    @Test
    void loginWithTheSavedTokenRenewsItForThatDeviceOnly() throws Exception {
        String name = unique("tok_");
        var r = okJson(http().post("api/v1/registrations", null, "{\"username\":\"" + name + "\",\"password\":\"" + PASSWORD
                + "\",\"deviceType\":\"android\",\"deviceId\":\"a1\"}"));
        String uid = r.getJsonObject("account").getString("id");
        String token = r.getJsonObject("token").getString("token");
        var again = http().post("api/v1/auth/login", null, "{\"uid\":\"" + uid + "\",\"token\":\"" + token
                + "\",\"deviceType\":\"android\",\"deviceId\":\"a1\"}");
        assertEquals(200, again.statusCode(), again.body());
        assertEquals(token, json(again).getString("token"));
        assertProblem(http().post("api/v1/auth/login", null, "{\"uid\":\"" + uid + "\",\"token\":\"" + token
                + "\",\"deviceType\":\"android\",\"deviceId\":\"someone-elses-phone\"}"), 401, "invalid-credentials");
        assertProblem(http().post("api/v1/auth/login", null, "{\"uid\":\"1\",\"token\":\"" + token
                + "\",\"deviceType\":\"android\",\"deviceId\":\"a1\"}"), 401, "invalid-credentials");
        assertProblem(http().post("api/v1/auth/login", null, "{\"uid\":\"" + uid + "\",\"token\":\"" + token
                + "\",\"password\":\"" + PASSWORD + "\",\"deviceType\":\"android\",\"deviceId\":\"a1\"}"), 400, "login-form");
    }

    @Test
    void failedLoginsLockTheAccountForAWhile() throws Exception {
        String name = unique("thr_");
        ok(http().post("api/v1/registrations", null, "{\"username\":\"" + name + "\",\"password\":\"" + PASSWORD + "\"}"));
        String bad = "{\"login\":\"" + name + "\",\"password\":\"not the password\",\"deviceType\":\"web\",\"deviceId\":\"w\"}";
        for (int i = 0; i < 4; i++) { // ROOST_LOGIN_MAX_FAILURES_PER_ACCOUNT=4 in the tests
            assertProblem(http().post("api/v1/auth/login", null, bad), 401, "invalid-credentials");
        }
        var locked = http().post("api/v1/auth/login", null, "{\"login\":\"" + name + "\",\"password\":\"" + PASSWORD
                + "\",\"deviceType\":\"web\",\"deviceId\":\"w\"}");
        assertProblem(locked, 429, "too-many-attempts");
        assertTrue(locked.headers().firstValue("Retry-After").isPresent());
    }

    @Test
    void profileChangesAndWhatOthersSee() throws Exception {
        String email = unique("prof.") + "@example.org";
        registerByEmail(email);
        String token = login(email, PASSWORD);
        String newName = unique("Prof_");
        var patched = http().patch("api/v1/accounts/me", bearer(token), "{\"username\":\"" + newName
                + "\",\"nick\":\"Pat\",\"avatarUrl\":\"https://cdn.example.org/p.png\",\"gender\":\"f\",\"age\":31,"
                + "\"region\":\"Lisbon\",\"params\":{\"title\":\"Dr\"}}");
        assertEquals(200, patched.statusCode(), patched.body());
        JsonObject me = json(patched);
        assertEquals(newName, me.getString("username"));
        assertEquals("Dr", me.getJsonObject("params").getString("title"));
        assertEquals(31, me.getInt("age"));
        // Absent fields stay, "" clears.
        me = json(http().patch("api/v1/accounts/me", bearer(token), "{\"nick\":\"\"}"));
        assertFalse(me.containsKey("nick") && !me.isNull("nick"), me.toString());
        assertEquals("Lisbon", me.getString("region"));
        assertProblem(http().patch("api/v1/accounts/me", bearer(token), "{\"avatarUrl\":\"javascript:alert(1)\"}"),
                400, "invalid-avatar-url");
        assertProblem(http().patch("api/v1/accounts/me", bearer(token), "{\"username\":\"admin\"}"), 409, "username-taken");
        assertProblem(http().patch("api/v1/accounts/me", bearer(token), "{\"age\":500}"), 400, "validation-failed");

        var seen = http().get("api/v1/users/" + me.getString("id"), ADMIN);
        assertEquals(200, seen.statusCode(), seen.body());
        assertEquals(newName, json(seen).getString("username"));
        assertFalse(seen.body().contains(email), "others do not see the e-mail address");

        assertProblem(http().put("api/v1/accounts/me/password", bearer(token), "{\"currentPassword\":\"wrong wrong wrong\","
                + "\"newPassword\":\"another good password\"}"), 403, "forbidden");
        assertEquals(204, http().put("api/v1/accounts/me/password", bearer(token), "{\"currentPassword\":\"" + PASSWORD
                + "\",\"newPassword\":\"another good password\"}").statusCode());
        login(newName, "another good password");
    }

    @Test
    void changingTheEmailNeedsCodesFromTheOldAndTheNewAddress() throws Exception {
        String email = unique("old.") + "@example.org";
        registerByEmail(email);
        String token = login(email, PASSWORD);
        String newEmail = unique("new.") + "@example.org";
        var requested = http().post("api/v1/accounts/me/address-changes", bearer(token),
                "{\"stage\":\"request\",\"email\":\"" + newEmail + "\"}");
        assertEquals(202, requested.statusCode(), requested.body());
        String oldCode = mail.code(email, 2);
        String newCode = mail.code(newEmail, 1);
        assertProblem(http().post("api/v1/accounts/me/address-changes", bearer(token), "{\"stage\":\"validate\",\"email\":\""
                + newEmail + "\",\"newCode\":\"" + newCode + "\"}"), 400, "invalid-code");
        var changed = http().post("api/v1/accounts/me/address-changes", bearer(token), "{\"stage\":\"validate\",\"email\":\""
                + newEmail + "\",\"oldCode\":\"" + oldCode + "\",\"newCode\":\"" + newCode + "\"}");
        assertEquals(200, changed.statusCode(), changed.body());
        assertEquals(newEmail, json(changed).getString("email"));
        login(newEmail, PASSWORD);
    }

    @Test
    void disableRecoverAndUnregister() throws Exception {
        String email = unique("life.") + "@example.org";
        String id = registerByEmail(email);
        String token = login(email, PASSWORD);

        var disabled = http().post("api/v1/accounts/" + id + "/disable", ADMIN, "");
        assertEquals(200, disabled.statusCode(), disabled.body());
        assertEquals("DISABLED", json(disabled).getString("status"));
        assertProblem(http().get("api/v1/accounts/me", bearer(token)), 401, "invalid-credentials");
        assertProblem(http().post("api/v1/auth/login", null, "{\"login\":\"" + email + "\",\"password\":\"" + PASSWORD
                + "\",\"deviceType\":\"web\",\"deviceId\":\"w\"}"), 403, "forbidden");
        String stranger = login(json(http().post("api/v1/registrations", null, "{\"username\":\"" + unique("str_")
                + "\",\"password\":\"" + PASSWORD + "\"}")).getJsonObject("account").getString("username"), PASSWORD);
        assertProblem(http().post("api/v1/accounts/" + id + "/recover", bearer(stranger), ""), 403, "forbidden");

        var recovered = http().post("api/v1/accounts/" + id + "/recover", ADMIN, "");
        assertEquals("ACTIVE", json(recovered).getString("status"), recovered.body());
        String fresh = login(email, PASSWORD);

        assertEquals(204, http().delete("api/v1/accounts/me", bearer(fresh)).statusCode());
        assertProblem(http().get("api/v1/accounts/me", bearer(fresh)), 401, "invalid-credentials");
        assertProblem(http().post("api/v1/auth/login", null, "{\"login\":\"" + email + "\",\"password\":\"" + PASSWORD
                + "\",\"deviceType\":\"web\",\"deviceId\":\"w\"}"), 401, "invalid-credentials");
        assertProblem(http().post("api/v1/accounts/" + id + "/recover", ADMIN, ""), 409, "account-unregistered");

        // Registering the address again revives the same id (an unregistered number is never given to anyone else).
        assertEquals(202, http().post("api/v1/registrations", null, "{\"stage\":\"request\",\"email\":\"" + email + "\"}")
                .statusCode());
        var revived = http().post("api/v1/registrations", null, "{\"stage\":\"validate\",\"email\":\"" + email
                + "\",\"code\":\"" + mail.code(email, 2) + "\",\"password\":\"a second life password\"}");
        assertEquals(201, revived.statusCode(), revived.body());
        assertEquals(id, json(revived).getJsonObject("account").getString("id"));
        login(email, "a second life password");
    }

    @Test
    void anOwnerMayLockTheirAccountAndRecoverItWithACode() throws Exception {
        String email = unique("self.") + "@example.org";
        String id = registerByEmail(email);
        String token = login(email, PASSWORD);
        var locked = http().post("api/v1/accounts/me/disable", bearer(token), "");
        assertEquals(200, locked.statusCode(), locked.body());
        assertProblem(http().get("api/v1/accounts/me", bearer(token)), 401, "invalid-credentials");

        assertEquals(202, http().post("api/v1/auth/recoveries", null, "{\"stage\":\"request\",\"email\":\"" + email + "\"}")
                .statusCode());
        var recovered = http().post("api/v1/auth/recoveries", null, "{\"stage\":\"validate\",\"email\":\"" + email
                + "\",\"code\":\"" + mail.code(email, 2) + "\"}");
        assertEquals(200, recovered.statusCode(), recovered.body());
        assertEquals("ACTIVE", json(recovered).getString("status"));
        login(email, PASSWORD);

        // An operator's disable cannot be undone by the owner: no code is sent.
        var byOperator = okJson(http().post("api/v1/accounts/" + id + "/disable", ADMIN, ""));
        assertEquals("DISABLED", byOperator.getString("status"), byOperator.toString());
        assertEquals(202, http().post("api/v1/auth/recoveries", null, "{\"stage\":\"request\",\"email\":\"" + email + "\"}")
                .statusCode());
        // No wait: a code is mailed inside the request that asks for it, so one would be here by now.
        assertEquals(2, mail.to(email).size(), "no third mail: the registration's and the first recovery's code only");
    }

    @Test
    void findUsersExactlyByPrefixPagedAndFuzzily() throws Exception {
        String stem = unique("srch");
        List<String> names = List.of(stem + "_alpha", stem + "_bravo", stem + "_charlie", stem + "_delta", stem + "_echo");
        for (String n : names) {
            assertEquals(201, http().post("api/v1/registrations", null, "{\"username\":\"" + n + "\",\"password\":\""
                    + PASSWORD + "\"}").statusCode());
        }
        List<String> seen = new ArrayList<>();
        String after = null;
        int pages = 0;
        do {
            var page = http().get("api/v1/users?q=" + stem.toUpperCase() + "&limit=2" + (after == null ? "" : "&after=" + after), ADMIN);
            assertEquals(200, page.statusCode(), page.body());
            JsonObject p = json(page);
            p.getJsonArray("items").forEach(u -> seen.add(u.asJsonObject().getString("username")));
            after = p.isNull("next") ? null : p.getString("next");
            pages++;
        } while (after != null && pages < 10);
        assertEquals(names, seen);
        assertEquals(3, pages);

        var fuzzy = http().get("api/v1/users?q=" + stem + "_charly&match=fuzzy&limit=3", ADMIN);
        assertEquals(200, fuzzy.statusCode(), fuzzy.body());
        assertEquals(stem + "_charlie", json(fuzzy).getJsonArray("items").getJsonObject(0).getString("username"), fuzzy.body());
        var infix = json(http().get("api/v1/users?q=" + stem.substring(4) + "_delt&match=fuzzy", ADMIN));
        assertEquals(stem + "_delta", infix.getJsonArray("items").getJsonObject(0).getString("username"));

        assertProblem(http().get("api/v1/users?q=a%25b", ADMIN), 400, "invalid-query");
        assertProblem(http().get("api/v1/users?q=ab&username=x", ADMIN), 400, "one-criterion");
        assertProblem(http().get("api/v1/users?q=ab&limit=1000", ADMIN), 400, "invalid-limit");
        assertProblem(http().get("api/v1/users?q=ab&match=regex", ADMIN), 400, "invalid-match");
        assertProblem(http().get("api/v1/users?email=not-an-address", ADMIN), 400, "invalid-email");
        assertProblem(http().get("api/v1/users?q=ab", null), 401, "missing-credentials");

        // Both searches can be served by an index (the planner would pick a scan on a table this small).
        try (Connection c = Database.connect();
             Statement st = c.createStatement()) {
            st.execute("SET enable_seqscan = off");
            assertTrue(Database.plan(st, "SELECT id FROM account WHERE lower(username) LIKE 'srch%' AND lower(username) > '' "
                    + "ORDER BY lower(username) LIMIT 20").contains("account_username_prefix_idx"));
            assertTrue(Database.plan(st, "SELECT id FROM account WHERE lower(username) LIKE '%harl%' OR lower(username) % 'charly'")
                    .contains("account_username_trgm_idx"));
        }
    }

    @Test
    void malformedRequestsGetClearErrorsAndChangeNothing() throws Exception {
        assertProblem(http().post("api/v1/registrations", null, "{\"stage\":\"request\",\"email\":\"not-mail\"}"),
                400, "invalid-email");
        assertProblem(http().post("api/v1/registrations", null, "{\"stage\":\"request\",\"phone\":\"12345\"}"),
                400, "invalid-phone");
        assertProblem(http().post("api/v1/registrations", null, "{\"stage\":\"request\",\"email\":\"a@b.org\",\"phone\":\"+15550000000\"}"),
                400, "one-address");
        assertProblem(http().post("api/v1/registrations", null, "{\"stage\":\"later\",\"email\":\"a@b.org\"}"),
                400, "validation-failed");
        assertProblem(http().post("api/v1/registrations", null, "{\"stage\":\"validate\",\"email\":\"a@b.org\",\"code\":\"12\"}"),
                400, "invalid-code");
        assertProblem(http().post("api/v1/registrations", null, "{not json"), 400, "malformed-json");
        assertProblem(http().post("api/v1/auth/login", null, "{\"login\":\"x\",\"password\":\"y\",\"deviceType\":\"web\"}"),
                400, "validation-failed");
    }
}
