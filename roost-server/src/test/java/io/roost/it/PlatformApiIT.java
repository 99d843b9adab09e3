package io.roost.it;

import static io.roost.it.Http.ADMIN;
import static io.roost.it.Http.ADMIN_USER;
import static io.roost.it.Http.basic;
import static io.roost.it.Http.bearer;
import static io.roost.it.Http.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Client-mode: real HTTP against the deployed WAR, as an enterprise back end would call it. */
class PlatformApiIT extends DeployedRoost {

    /** A problem, as {@link Problems#assertProblem}, whose body gives nothing of the server's insides away. */
    private static void assertProblem(HttpResponse<String> response, int status, String slug) {
        Problems.assertProblem(response, status, slug);
        assertFalse(response.body().contains("at io.roost") || response.body().contains("Exception:"),
                "no stack trace in a problem: " + response.body());
    }

    @Test
    void healthReportsDatabaseAndBrokerWithoutCredentials() throws Exception {
        HttpResponse<String> response = http().get("api/health", null);
        assertEquals(200, response.statusCode(), response.body());
        JsonObject body = json(response);
        assertTrue(body.getBoolean("up"));
        assertTrue(body.getJsonObject("checks").getJsonObject("database").getBoolean("up"));
        assertTrue(body.getJsonObject("checks").getJsonObject("database").getString("detail").startsWith("PostgreSQL"));
        assertTrue(body.getJsonObject("checks").getJsonObject("rocketmq").getBoolean("up"), response.body());
        assertTrue(body.getJsonObject("checks").getJsonObject("topics").getBoolean("up"), response.body());
    }

    @Test
    void openApiDocumentIsPublicAndListsTheApi() throws Exception {
        HttpResponse<String> response = http().get("openapi?format=JSON", null);
        assertEquals(200, response.statusCode());
        JsonObject doc = json(response);
        assertTrue(doc.getJsonObject("paths").containsKey("/api/v1/accounts"), response.body());
        assertTrue(doc.getJsonObject("paths").containsKey("/api/health"));
        // served outside JAX-RS, described by META-INF/openapi.yaml
        assertTrue(doc.getJsonObject("paths").containsKey("/api/v1/webhooks/agora"));
    }

    @Test
    void noCredentialsIs401ProblemWithChallenge() throws Exception {
        HttpResponse<String> response = http().get("api/v1/accounts/me", null);
        assertProblem(response, 401, "missing-credentials");
        assertTrue(response.headers().firstValue("WWW-Authenticate").orElse("").contains("Basic"));
    }

    /**
     * The public paths are matched on the path the container resolved, so dot segments and path
     * parameters cannot dress a protected endpoint up as a public one. Sent over a raw socket: the
     * JDK's client would resolve the dot segments itself.
     */
    @Test
    void publicPathTricksStillNeedCredentials() throws Exception {
        for (String path : new String[] {"/api/v1/webhooks/../accounts/me", "/api/v1/auth/login/../../accounts/me",
                "/api/v1/registrations/..;/accounts/me", "/api/./v1/accounts/me", "/api/v1/webhooks/%2e%2e/accounts/me",
                "/api/health/../v1/accounts/me"}) {
            try (java.net.Socket socket = new java.net.Socket(baseUrl.getHost(), baseUrl.getPort())) {
                socket.setSoTimeout(10_000);
                socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: " + baseUrl.getHost() + "\r\nConnection: close\r\n\r\n")
                        .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                String response = new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                String status = response.substring(0, response.indexOf("\r\n"));
                assertTrue(status.contains(" 401 ") || status.contains(" 400 ") || status.contains(" 404 "), path + " -> " + status);
                assertFalse(response.contains("\"username\""), path + " leaked an account: " + response);
            }
        }
    }

    @Test
    void wrongPasswordAndGarbageCredentialsAre401() throws Exception {
        assertProblem(http().get("api/v1/accounts/me", basic(ADMIN_USER, "not-the-password")), 401, "invalid-credentials");
        assertProblem(http().get("api/v1/accounts/me", basic("nobody-" + UUID.randomUUID(), "whatever-12345")), 401,
                "invalid-credentials");
        assertProblem(http().get("api/v1/accounts/me", "Basic %%%not-base64"), 401, "malformed-credentials");
        assertProblem(http().get("api/v1/accounts/me", bearer("rst_forged")), 401, "invalid-credentials");
    }

    @Test
    void adminSeesItself() throws Exception {
        HttpResponse<String> response = http().get("api/v1/accounts/me", ADMIN);
        assertEquals(200, response.statusCode(), response.body());
        JsonObject me = json(response);
        assertEquals(ADMIN_USER, me.getString("username"));
        assertTrue(me.getJsonArray("roles").getString(0).equals("admin"));
    }

    @Test
    void userWithBearerTokenIsForbiddenAdminWorkAndRevocationEndsTheToken() throws Exception {
        Http http = http();
        String name = "user-" + UUID.randomUUID().toString().substring(0, 8);
        HttpResponse<String> created = http.post("api/v1/accounts", ADMIN,
                "{\"username\":\"" + name + "\",\"password\":\"correct horse battery\",\"roles\":[\"user\"]}");
        assertEquals(201, created.statusCode(), created.body());
        String id = json(created).getString("id");
        assertTrue(created.headers().firstValue("Location").orElse("").endsWith("/api/v1/accounts/" + id));

        HttpResponse<String> issued = http.post("api/v1/auth/tokens", basic(name, "correct horse battery"), "{}");
        assertEquals(201, issued.statusCode(), issued.body());
        String token = json(issued).getString("token");

        HttpResponse<String> me = http.get("api/v1/accounts/me", bearer(token));
        assertEquals(200, me.statusCode(), me.body());
        assertEquals(id, json(me).getString("id"));

        // Role check: a user may not create accounts, nor read someone else's.
        assertProblem(http.post("api/v1/accounts", bearer(token),
                "{\"username\":\"x" + name + "\",\"password\":\"correct horse battery\",\"roles\":[\"admin\"]}"), 403, "forbidden");
        String adminId = json(http.get("api/v1/accounts/me", ADMIN)).getString("id");
        assertProblem(http.get("api/v1/accounts/" + adminId, bearer(token)), 403, "forbidden");

        assertEquals(204, http.delete("api/v1/auth/tokens/current", bearer(token)).statusCode());
        assertProblem(http.get("api/v1/accounts/me", bearer(token)), 401, "invalid-credentials");
    }

    @Test
    void malformedJsonIs400ProblemAndCreatesNothing() throws Exception {
        Http http = http();
        String name = "broken-" + UUID.randomUUID().toString().substring(0, 8);
        assertProblem(http.post("api/v1/accounts", ADMIN, "{\"username\":\"" + name + "\",\"password\":"), 400, "malformed-json");
        assertProblem(http.post("api/v1/accounts", ADMIN, "[1,2,3]"), 400, "malformed-json");
        // The account was not created: creating it properly now succeeds.
        assertEquals(201, http.post("api/v1/accounts", ADMIN,
                "{\"username\":\"" + name + "\",\"password\":\"long enough password\",\"roles\":[\"service\"]}").statusCode());
    }

    @Test
    void invalidInputIs400WithFieldErrorsAndDuplicateIs409() throws Exception {
        Http http = http();
        HttpResponse<String> invalid = http.post("api/v1/accounts", ADMIN,
                "{\"username\":\"a b\",\"password\":\"short\",\"roles\":[\"emperor\"]}");
        assertProblem(invalid, 400, "validation-failed");
        String fields = json(invalid).getJsonArray("errors").toString();
        assertTrue(fields.contains("username") && fields.contains("password") && fields.contains("roles"), fields);

        assertProblem(http.post("api/v1/accounts", ADMIN, ""), 400, "validation-failed");
        assertProblem(http.post("api/v1/accounts", ADMIN,
                "{\"username\":\"ADMIN\",\"password\":\"long enough password\",\"roles\":[\"user\"]}"), 409, "username-taken");
    }

    @Test
    void concurrentCreationsOfOneNameMakeExactlyOneAccount() throws Exception {
        Http http = http();
        String name = "race-" + UUID.randomUUID().toString().substring(0, 8);
        String body = "{\"username\":\"" + name + "\",\"password\":\"long enough password\",\"roles\":[\"user\"]}";
        var pool = java.util.concurrent.Executors.newFixedThreadPool(10);
        var results = new java.util.ArrayList<java.util.concurrent.Future<Integer>>();
        var start = new java.util.concurrent.CountDownLatch(1);
        for (int i = 0; i < 10; i++) {
            results.add(pool.submit(() -> {
                start.await();
                return http.post("api/v1/accounts", ADMIN, body).statusCode();
            }));
        }
        start.countDown();
        var codes = new java.util.ArrayList<Integer>();
        for (var f : results) {
            codes.add(f.get());
        }
        pool.shutdown();
        assertEquals(1, codes.stream().filter(c -> c == 201).count(), codes.toString());
        assertEquals(9, codes.stream().filter(c -> c == 409).count(), codes.toString());
    }

    @Test
    void oversizedBodyIsRefusedWith413Problem() throws Exception {
        String huge = "{\"username\":\"" + "x".repeat(1536 * 1024) + "\"}";
        HttpResponse<String> response = http().post("api/v1/accounts", ADMIN, huge);
        assertProblem(response, 413, "payload-too-large");
    }

    @Test
    void aChunkedBodyPastTheLimitIsRefusedWith413Too() throws Exception {
        // no Content-Length: the limit is counted as the body is read (the upload paths have their own)
        byte[] huge = ("{\"username\":\"" + "x".repeat(1536 * 1024) + "\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        java.net.http.HttpRequest request = java.net.http.HttpRequest.newBuilder(base().resolve("api/v1/accounts"))
                .header("Authorization", ADMIN).header("Content-Type", "application/json")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(huge))).build();
        HttpResponse<String> response = java.net.http.HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
        assertProblem(response, 413, "payload-too-large");
    }

    @Test
    void unknownPathIs404Problem() throws Exception {
        assertProblem(http().get("api/v1/no-such-thing", ADMIN), 404, "not-found");
    }
}
