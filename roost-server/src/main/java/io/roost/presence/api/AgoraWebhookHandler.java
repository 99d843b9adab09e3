package io.roost.presence.api;

import io.roost.platform.api.JsonbResolver;
import io.roost.platform.api.RequestIds;
import io.roost.platform.problem.Problem;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.problem.Unreachable;
import io.roost.presence.rtc.NcsNotice;
import io.undertow.server.HttpHandler;
import io.undertow.server.HttpServerExchange;
import io.undertow.server.RequestTooBigException;
import io.undertow.util.AttachmentKey;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import io.undertow.util.Methods;
import io.undertow.util.SameThreadExecutor;
import jakarta.servlet.ServletContext;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code POST /api/v1/webhooks/agora}, served on Undertow's I/O thread in front of the servlet
 * chain. NCS sends one notice per request, so per-request cost is what bounds ingestion: this path
 * skips the security mechanism (the HMAC is the authentication), servlet dispatch and JAX-RS, reads
 * the body without blocking, and answers from the I/O thread once the group commit has committed
 * the notice. Every other request passes straight through to {@code next}.
 */
final class AgoraWebhookHandler implements HttpHandler {

    private static final Logger LOG = Logger.getLogger(AgoraWebhookHandler.class.getName());
    static final String PATH = "/api/v1/webhooks/agora";
    private static final HttpString REQUEST_ID_HEADER = HttpString.tryFromString(RequestIds.HEADER);
    private static final AttachmentKey<String> REQUEST_ID = AttachmentKey.create(String.class);
    private static final HttpString SHA1_HEADER = HttpString.tryFromString("Agora-Signature");
    private static final HttpString SHA256_HEADER = HttpString.tryFromString("Agora-Signature-V2");

    private final HttpHandler next;
    private final ServletContext context;

    AgoraWebhookHandler(HttpHandler next, ServletContext context) {
        this.next = next;
        this.context = context;
    }

    @Override
    public void handleRequest(HttpServerExchange exchange) throws Exception {
        if (!PATH.equals(exchange.getRelativePath())) {
            next.handleRequest(exchange);
            return;
        }
        String requestId = RequestIds.accept(exchange.getRequestHeaders().getFirst(RequestIds.HEADER));
        exchange.putAttachment(REQUEST_ID, requestId);
        exchange.getResponseHeaders().put(REQUEST_ID_HEADER, requestId);
        if (!Methods.POST.equals(exchange.getRequestMethod())) {
            exchange.getResponseHeaders().put(Headers.ALLOW, "POST");
            problem(exchange, Problem.of(405, "method-not-allowed", "Method not allowed",
                    "Notifications are POSTed to " + PATH + "."));
            return;
        }
        // Published by the CDI bean once the application has started; until then NCS retries.
        AgoraWebhook webhook = (AgoraWebhook) context.getAttribute(AgoraWebhook.ATTRIBUTE);
        if (webhook == null) {
            problem(exchange, ProblemException.unavailable("starting", "The server is starting; send it again.",
                    Unreachable.RETRY_AFTER_SECONDS));
            return;
        }
        long declared = exchange.getRequestContentLength();
        if (declared > webhook.maxBytes()) {
            problem(exchange, tooLarge(declared + " bytes", webhook.maxBytes()));
            return;
        }
        // receiveFullBytes copies the body a byte at a time (a quarter of this path's CPU under load);
        // the partial callback hands over whole chunks, which are copied in bulk.
        long max = webhook.maxBytes();
        ByteArrayOutputStream body = new ByteArrayOutputStream(declared > 0 ? (int) declared : 512);
        exchange.getRequestReceiver().receivePartialBytes((ex, chunk, last) -> {
            body.write(chunk, 0, chunk.length);
            if (body.size() > max) {
                ex.getRequestReceiver().pause();
                problem(ex, tooLarge("more bytes", max));
            } else if (last) {
                receive(ex, webhook, body.toByteArray());
            }
        }, (ex, failure) -> {
            if (failure instanceof RequestTooBigException) {
                problem(ex, tooLarge("more bytes", max));
            } else {
                ex.endExchange(); // the client went away mid-body
            }
        });
    }

    /** With the request's id in the logging MDC while the notice is checked and queued on this thread. */
    private static void receive(HttpServerExchange exchange, AgoraWebhook webhook, byte[] body) {
        RequestIds.enter(exchange.getAttachment(REQUEST_ID));
        try {
            receiveNow(exchange, webhook, body);
        } finally {
            RequestIds.clear();
        }
    }

    private static void receiveNow(HttpServerExchange exchange, AgoraWebhook webhook, byte[] body) {
        CompletableFuture<NcsNotice> applied;
        try {
            applied = webhook.receive(body, exchange.getRequestHeaders().getFirst(SHA1_HEADER),
                    exchange.getRequestHeaders().getFirst(SHA256_HEADER));
        } catch (ProblemException e) {
            problem(exchange, e);
            return;
        } catch (RuntimeException e) {
            Optional<ProblemException> unavailable = Unreachable.problemFor(e);
            if (unavailable.isPresent()) {
                problem(exchange, unavailable.get());
                return;
            }
            String errorId = UUID.randomUUID().toString();
            LOG.log(Level.SEVERE, "Webhook failed, error id " + errorId, e);
            problem(exchange, Problem.of(500, "internal-error", "Internal server error",
                    "Something went wrong on our side; quote error id " + errorId + "."));
            return;
        }
        if (applied.isDone()) { // a known duplicate or an unknown type: nothing to wait for
            answer(exchange, applied);
            return;
        }
        // Keep the exchange open past this call; the commit's thread hands the answer back to the I/O thread.
        exchange.dispatch(SameThreadExecutor.INSTANCE,
                () -> applied.whenComplete((notice, failure) -> answerOnIoThread(exchange, applied)));
    }

    private static void answerOnIoThread(HttpServerExchange exchange, CompletableFuture<NcsNotice> applied) {
        try {
            exchange.getIoThread().execute(() -> answer(exchange, applied));
        } catch (RuntimeException e) { // the server is stopping: the client sees the connection close, NCS retries
            LOG.log(Level.FINE, "could not answer a webhook request", e);
        }
    }

    private static void answer(HttpServerExchange exchange, CompletableFuture<NcsNotice> applied) {
        NcsNotice notice;
        try {
            notice = applied.join();
        } catch (RuntimeException failure) {
            // Either way NCS sends it again: service-unavailable when the database or the broker is out of
            // reach, not-applied for anything else (the deadline passed, the queue was full).
            LOG.log(Level.FINE, "notice not applied", failure);
            problem(exchange, Unreachable.problemFor(failure).orElseGet(() -> ProblemException.unavailable("not-applied",
                    "The notice was not committed; send it again.", Unreachable.RETRY_AFTER_SECONDS)));
            return;
        }
        send(exchange, 200, "application/json",
                JsonbResolver.jsonb().toJson(Map.of("noticeId", notice.noticeId())));
    }

    private static Problem tooLarge(String size, long maxBytes) {
        return Problem.of(413, "payload-too-large", "Payload too large",
                "The request body has " + size + "; this server accepts at most " + maxBytes + ".");
    }

    private static void problem(HttpServerExchange exchange, ProblemException problem) {
        if (problem.retryAfterSeconds() > 0) {
            exchange.getResponseHeaders().put(Headers.RETRY_AFTER, Long.toString(problem.retryAfterSeconds()));
        }
        problem(exchange, problem.toProblem());
    }

    private static void problem(HttpServerExchange exchange, Problem problem) {
        send(exchange, problem.status(), Problem.MEDIA_TYPE.toString(),
                JsonbResolver.jsonb().toJson(problem.forRequest(exchange.getAttachment(REQUEST_ID))));
    }

    private static void send(HttpServerExchange exchange, int status, String contentType, String json) {
        exchange.setStatusCode(status);
        exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, contentType);
        exchange.getResponseSender().send(ByteBuffer.wrap(json.getBytes(StandardCharsets.UTF_8)));
    }
}
