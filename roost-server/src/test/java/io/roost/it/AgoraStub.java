package io.roost.it;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A stand-in for Agora's REST API on the suite's {@code ROOST_AGORA_API_BASE} port, started before a
 * test class's tests and stopped after them: records kicking-rule requests and their Authorization
 * headers, and fails the first ones of a channel on demand.
 * {@code @RegisterExtension static final AgoraStub agora = new AgoraStub();}
 */
public final class AgoraStub implements BeforeAllCallback, AfterAllCallback {

    /** The bodies of the kicking-rule requests, in arrival order. */
    public final List<String> kickRequests = new CopyOnWriteArrayList<>();
    public final List<String> kickAuth = new CopyOnWriteArrayList<>();
    /**
     * Requests for this channel fail while failures are left. Per channel: other tests' kicks (an
     * admin kick retried after the stub was down) reach the stub too and must not use them up.
     */
    private final AtomicReference<String> failingChannel = new AtomicReference<>("");
    private final AtomicInteger failuresLeft = new AtomicInteger();
    private HttpServer server;

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        int port = Integer.parseInt(System.getProperty("roost.test.agora.port", "18089"));
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        server.createContext("/dev/v1/kicking-rule", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            kickRequests.add(body);
            kickAuth.add(exchange.getRequestHeaders().getFirst("Authorization"));
            boolean fail = body.contains("\"" + failingChannel.get() + "\"")
                    && failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
            byte[] answer = (fail ? "{\"message\":\"boom\"}" : "{\"status\":\"success\",\"id\":1953}")
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(fail ? 500 : 200, answer.length);
            exchange.getResponseBody().write(answer);
            exchange.close();
        });
        server.start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (server != null) {
            server.stop(0);
        }
    }

    /** The next {@code failures} kicking-rule requests for this channel answer HTTP 500. */
    public void failNext(String channel, int failures) {
        failingChannel.set(channel);
        failuresLeft.set(failures);
    }

    /** The kicking-rule requests that name this channel. */
    public List<String> kicksOf(String channel) {
        return kickRequests.stream().filter(b -> b.contains("\"" + channel + "\"")).toList();
    }
}
