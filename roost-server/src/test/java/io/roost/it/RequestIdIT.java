package io.roost.it;

import static io.roost.it.Http.ADMIN;
import static io.roost.it.Http.json;
import static io.roost.it.Problems.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Every answer carries its request's id (X-Request-Id): the caller's when it is sane, else a new
 * one; a problem names it in {@code instance}, and the server's log lines of the request carry it.
 */
class RequestIdIT extends DeployedRoost {

    static final String HEADER = "X-Request-Id";
    static final String GENERATED = "[0-9a-f]{32}";

    HttpResponse<String> get(String path, String authorization, String requestId) {
        return http().get(path, authorization, requestId == null ? Map.of() : Map.of(HEADER, requestId));
    }

    static String answered(HttpResponse<String> r) {
        return r.headers().firstValue(HEADER).orElseThrow(() -> new AssertionError("no " + HEADER + ": " + r));
    }

    static void instanceIs(HttpResponse<String> r, String id) {
        assertEquals("urn:roost:request:" + id, json(r).getString("instance"), r.body());
    }

    @Test
    void theCallersIdIsAnsweredInTheProblemAndInTheServersLogLine() throws Exception {
        String id = "it-" + UUID.randomUUID();
        HttpResponse<String> refused = get("api/v1/admin/metrics?range=1y", ADMIN, id);
        assertProblem(refused, 400, "invalid-range");
        assertEquals(id, answered(refused));
        instanceIs(refused, id);
        Wait.until("the server's log line of request " + id, Duration.ofSeconds(10),
                () -> ServerLog.linesWith(id).stream().anyMatch(l -> l.contains("urn:roost:problem:invalid-range")));

        // answered before JAX-RS: by the authentication filter, and by the Agora webhook's handler
        HttpResponse<String> anonymous = get("api/v1/accounts/me", null, id + "-a");
        assertProblem(anonymous, 401, "missing-credentials");
        assertEquals(id + "-a", answered(anonymous));
        instanceIs(anonymous, id + "-a");
        HttpResponse<String> webhook = get("api/v1/webhooks/agora", null, id + "-w");
        assertProblem(webhook, 405, "method-not-allowed");
        assertEquals(id + "-w", answered(webhook));
        instanceIs(webhook, id + "-w");

        String traced = "Root=1-67891233-abc/def+g.h_i:j";
        assertEquals(traced, answered(get("api/v1/health", null, traced)), "a sane id of another tracer is kept as it is");
    }

    @Test
    void withoutAnIdOrWithAnInsaneOneTheServerMakesOne() {
        HttpResponse<String> none = get("api/v1/accounts/me", null, null);
        String made = answered(none);
        assertTrue(made.matches(GENERATED), made);
        instanceIs(none, made);
        assertNotEquals(made, answered(get("api/v1/accounts/me", null, null)), "a new id per request");
        assertTrue(answered(get("api/v1/health", null, null)).matches(GENERATED), "a success has one too");

        for (String insane : List.of("has spaces", "a".repeat(129), "quote\"d", "semi;colon", "<script>", "")) {
            HttpResponse<String> r = get("api/v1/accounts/me", null, insane);
            String replaced = answered(r);
            assertTrue(replaced.matches(GENERATED), "'" + insane + "' replaced: " + replaced);
            instanceIs(r, replaced);
        }
    }
}
