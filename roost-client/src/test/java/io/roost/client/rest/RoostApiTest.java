package io.roost.client.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.roost.client.rest.model.HealthReport;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** RoostApi against an in-process HTTP server playing Roost: credentials, the 503 retry and its bounds, problems. */
class RoostApiTest {

    private record Answer(int status, String retryAfter, String contentType, String body) {
    }

    private HttpServer server;
    private final Deque<Answer> answers = new ArrayDeque<>();
    private final AtomicInteger requests = new AtomicInteger();
    private final List<String> authorizations = new ArrayList<>();
    private URI base;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::answer);
        server.start();
        base = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private void answer(HttpExchange x) throws IOException {
        requests.incrementAndGet();
        synchronized (authorizations) {
            authorizations.add(x.getRequestHeaders().getFirst("Authorization"));
        }
        Answer a;
        synchronized (answers) {
            a = answers.size() > 1 ? answers.poll() : answers.peek();
        }
        byte[] body = a.body().getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().add("Content-Type", a.contentType());
        if (a.retryAfter() != null) {
            x.getResponseHeaders().add("Retry-After", a.retryAfter());
        }
        x.sendResponseHeaders(a.status(), body.length);
        x.getResponseBody().write(body);
        x.close();
    }

    private static Answer healthy() {
        return new Answer(200, null, "application/json", "{\"up\":true,\"checks\":{}}");
    }

    private static Answer unavailable(String retryAfter) {
        return new Answer(503, retryAfter, "application/problem+json", "{\"type\":\"urn:roost:problem:service-unavailable\","
                + "\"status\":503,\"title\":\"Service unavailable\",\"detail\":\"The database is out of reach.\"}");
    }

    @Test
    void a503IsSentAgainAfterItsRetryAfterUntilItSucceeds() {
        answers.add(unavailable("0"));
        answers.add(unavailable("1"));
        answers.add(healthy());
        RoostApi roost = RoostApi.builder(base).bearer("t0k").build();
        long start = System.nanoTime();
        HealthReport health = roost.call(() -> roost.platform().getHealth());
        assertTrue(health.getUp());
        assertEquals(3, requests.get());
        assertTrue(System.nanoTime() - start >= Duration.ofMillis(900).toNanos(), "waited the second answer's Retry-After: 1");
        assertEquals(List.of("Bearer t0k", "Bearer t0k", "Bearer t0k"), authorizations);
    }

    @Test
    void retriesAreBoundedAndTheLast503IsTheProblem() {
        answers.add(unavailable("0"));
        RoostApi roost = RoostApi.builder(base).basic("svc", "pw").retries(new RetryPolicy(2, Duration.ofSeconds(5))).build();
        RoostProblemException p = assertThrows(RoostProblemException.class, () -> roost.call(() -> roost.platform().getHealth()));
        assertEquals(3, requests.get(), "the call and two retries");
        assertEquals("service-unavailable", p.slug());
        assertEquals(503, p.status());
        assertTrue(authorizations.get(0).startsWith("Basic "));
    }

    @Test
    void aLongRetryAfterIsCutToTheMaximumWait() {
        answers.add(unavailable("3600"));
        answers.add(healthy());
        RoostApi roost = RoostApi.builder(base).retries(new RetryPolicy(1, Duration.ofMillis(200))).build();
        long start = System.nanoTime();
        roost.call(() -> roost.platform().getHealth());
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(10).toNanos());
        assertEquals(2, requests.get());
    }

    @Test
    void nothingButA503IsRetried() {
        answers.add(new Answer(500, "0", "application/problem+json",
                "{\"type\":\"urn:roost:problem:internal-error\",\"status\":500,\"title\":\"Internal error\",\"detail\":\"error id 7\"}"));
        RoostApi roost = RoostApi.builder(base).build();
        RoostProblemException p = assertThrows(RoostProblemException.class, () -> roost.call(() -> roost.platform().getHealth()));
        assertEquals(1, requests.get());
        assertEquals("internal-error", p.slug());
        assertEquals(429, retryOnce(new Answer(429, "0", "application/problem+json",
                "{\"type\":\"urn:roost:problem:rate-limited\",\"status\":429,\"title\":\"Too many\"}")));
    }

    private int retryOnce(Answer a) {
        answers.clear();
        answers.add(a);
        requests.set(0);
        RoostApi roost = RoostApi.builder(base).build();
        RoostProblemException p = assertThrows(RoostProblemException.class, () -> roost.call(() -> roost.platform().getHealth()));
        assertEquals(1, requests.get(), "a " + a.status() + " is not retried");
        return p.status();
    }

    @Test
    void aProblemCarriesItsTypeStatusTitleAndDetail() {
        answers.add(new Answer(400, null, "application/problem+json", "{\"type\":\"urn:roost:problem:validation-failed\","
                + "\"status\":400,\"title\":\"Validation failed\",\"detail\":\"username is required\","
                + "\"errors\":[{\"field\":\"username\",\"message\":\"required\"}]}"));
        RoostApi roost = RoostApi.builder(base).build();
        RoostProblemException p = assertThrows(RoostProblemException.class, () -> roost.call(() -> roost.platform().getHealth()));
        assertEquals("urn:roost:problem:validation-failed", p.type());
        assertEquals("validation-failed", p.slug());
        assertEquals(400, p.status());
        assertEquals("Validation failed", p.title());
        assertEquals("username is required", p.detail());
        assertEquals("username", p.problem().path("errors").path(0).path("field").asText());
    }

    @Test
    void anAnswerThatIsNoProblemIsAboutBlankWithItsBody() {
        RoostProblemException p = RoostProblemException.of(502, "<html>Bad gateway</html>");
        assertEquals("about:blank", p.type());
        assertEquals(502, p.status());
        assertEquals("<html>Bad gateway</html>", p.detail());
    }
}
