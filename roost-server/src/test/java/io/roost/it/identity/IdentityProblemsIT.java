package io.roost.it.identity;

import static io.roost.it.Http.ADMIN;
import static io.roost.it.Http.json;
import static io.roost.it.Http.ok;
import static io.roost.it.Http.okJson;
import static io.roost.it.Problems.assertProblem;
import static io.roost.it.identity.IdentityIT.PASSWORD;
import static io.roost.it.identity.IdentityIT.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.Database;
import io.roost.it.DeployedRoost;
import io.roost.it.Http;
import io.roost.it.Mailbox;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import io.roost.it.Wait;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Identity's refusals that need the world to change between two calls (an account disabled between
 * a code and its use, a row changed between a read and a write, a mail server that refuses), or a
 * request the validation lets through: each its problem type, and nothing changed.
 */
@ResourceLock(Mailbox.SMTP_PORT)
class IdentityProblemsIT extends DeployedRoost {

    @RegisterExtension
    static final Mailbox mail = new Mailbox();

    String login(String login, String password) throws Exception {
        return TestUsers.login(baseUrl, login, password, "android", "it-phone");
    }

    static String codeRequest(String email) {
        return "{\"stage\":\"request\",\"email\":\"" + email + "\"}";
    }

    @Test
    void aCodeTheMailServerRefusedIsNotStoredSoTheAddressMayAskAgainAtOnce() throws Exception {
        String email = unique("refused.") + "@example.org";
        HttpResponse<String> refused = mail.refusingEveryRecipient(() -> http().post("api/v1/registrations", null, codeRequest(email)));
        assertProblem(refused, 502, "code-delivery-failed");
        // A stored code would make this 429 code-recently-sent (one code a minute per address).
        var again = http().post("api/v1/registrations", null, codeRequest(email));
        assertEquals(202, again.statusCode(), again.body());
        var created = http().post("api/v1/registrations", null, "{\"stage\":\"validate\",\"email\":\"" + email
                + "\",\"code\":\"" + mail.code(email, 1) + "\",\"password\":\"" + PASSWORD + "\"}");
        assertEquals(201, created.statusCode(), created.body());
    }

    @Test
    void aResetCodeOfAnAccountDisabledMeanwhileChangesNoPassword() throws Exception {
        String email = unique("reset.") + "@example.org";
        String id = TestUsers.registerByEmail(baseUrl, mail, email, PASSWORD);
        assertEquals(202, http().post("api/v1/auth/password-resets", null, codeRequest(email)).statusCode());
        String code = mail.code(email, 2);
        assertEquals("DISABLED", okJson(http().post("api/v1/accounts/" + id + "/disable", ADMIN, "")).getString("status"));

        assertProblem(http().post("api/v1/auth/password-resets", null, "{\"stage\":\"validate\",\"email\":\"" + email
                + "\",\"code\":\"" + code + "\",\"newPassword\":\"a password set meanwhile\"}"), 409, "account-not-active");

        assertEquals("ACTIVE", okJson(http().post("api/v1/accounts/" + id + "/recover", ADMIN, "")).getString("status"));
        login(email, PASSWORD); // the old password, unchanged
        assertProblem(http().post("api/v1/auth/login", null, "{\"login\":\"" + email + "\",\"password\":\"a password set meanwhile\""
                + ",\"deviceType\":\"web\",\"deviceId\":\"w\"}"), 401, "invalid-credentials");
    }

    @Test
    void aSelfRecoveryCodeIsRefusedOnceAnOperatorDisabledTheAccount() throws Exception {
        String email = unique("selfrec.") + "@example.org";
        String id = TestUsers.registerByEmail(baseUrl, mail, email, PASSWORD);
        assertEquals("DISABLED", okJson(http().post("api/v1/accounts/me/disable", Http.bearer(login(email, PASSWORD)), ""))
                .getString("status"));
        assertEquals(202, http().post("api/v1/auth/recoveries", null, codeRequest(email)).statusCode());
        String code = mail.code(email, 2);
        ok(http().post("api/v1/accounts/" + id + "/disable", ADMIN, "")); // now the operator's disable

        assertProblem(http().post("api/v1/auth/recoveries", null, "{\"stage\":\"validate\",\"email\":\"" + email
                + "\",\"code\":\"" + code + "\"}"), 409, "not-self-recoverable");
        assertEquals("DISABLED", okJson(http().get("api/v1/accounts/" + id, ADMIN)).getString("status"), "still disabled");
    }

    @Test
    void revokingTheCurrentTokenNeedsABearerTokenAndBasicRevokesNothing() throws Exception {
        User user = TestUsers.create(baseUrl, "nb-");
        assertProblem(http().delete("api/v1/auth/tokens/current", Http.basic(user.name(), TestUsers.PASSWORD)),
                400, "not-a-bearer-token");
        assertEquals(user.id(), okJson(http().get("api/v1/accounts/me", user.auth())).getString("id"), "the user's token still works");
    }

    /** The request's validation lets a null role through (a null passes a pattern); the service refuses it. */
    @Test
    void anAccountWithARoleOutsideAdminServiceAndUserIsNotCreated() throws Exception {
        String name = unique("role_");
        assertProblem(http().post("api/v1/accounts", ADMIN, "{\"username\":\"" + name + "\",\"password\":\"" + PASSWORD
                + "\",\"roles\":[null]}"), 400, "unknown-role");
        assertTrue(okJson(http().get("api/v1/users?username=" + name, ADMIN)).getJsonArray("items").isEmpty(), "no account");
        var created = http().post("api/v1/accounts", ADMIN, "{\"username\":\"" + name + "\",\"password\":\"" + PASSWORD
                + "\",\"roles\":[\"user\"]}");
        assertEquals(201, created.statusCode(), "the name is still free: " + created.body());
    }

    /**
     * A profile change reads the account, then writes it if its version is unchanged. Here the write
     * waits for a row lock the test holds, and the test changes the account meanwhile, as another
     * request would: the change is refused, and the other one stays.
     */
    @Test
    void aProfileChangeToAnAccountChangedMeanwhileIsRefused() throws Exception {
        User user = TestUsers.create(baseUrl, "cm-");
        ok(http().patch("api/v1/accounts/me", user.auth(), "{\"nick\":\"before\"}"));
        CompletableFuture<HttpResponse<String>> change;
        try (Connection other = Database.connect(); Connection watch = Database.connect()) {
            other.setAutoCommit(false);
            long otherPid = Database.queryLong(other, "SELECT pg_backend_pid()");
            Database.queryLong(other, "SELECT version FROM account WHERE id = ? FOR UPDATE", Long.parseLong(user.id()));
            change = CompletableFuture.supplyAsync(() -> http().patch("api/v1/accounts/me", user.auth(), "{\"nick\":\"lost\"}"));
            Wait.until("the profile change waits for the account row", Duration.ofSeconds(20),
                    () -> Database.queryLong(watch, Database.BLOCKED_BY, (int) otherPid) > 0);
            assertEquals(1, Database.execute(other, "UPDATE account SET nick = 'meanwhile', version = version + 1 WHERE id = ?",
                    Long.parseLong(user.id())));
            other.commit();
        }
        assertProblem(change.get(30, TimeUnit.SECONDS), 409, "concurrent-modification");
        assertEquals("meanwhile", json(http().get("api/v1/accounts/me", user.auth())).getString("nick"));
    }
}
