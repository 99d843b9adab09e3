package io.roost.client.rest;

import java.io.Closeable;
import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * A shared HttpClient that sends a request again after a 503 as its {@link RetryPolicy} allows:
 * the generated REST client sends through it, so every generated call retries the same way.
 */
final class RetryingHttpClient extends HttpClient {

    private final HttpClient delegate;
    private final RetryPolicy policy;

    RetryingHttpClient(HttpClient delegate, RetryPolicy policy) {
        this.delegate = delegate;
        this.policy = policy;
    }

    @Override
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) throws IOException, InterruptedException {
        for (int retry = 0; ; retry++) {
            HttpResponse<T> r = delegate.send(request, handler);
            Optional<Duration> wait = policy.waitBefore(retry, r.statusCode(), r.headers().firstValue("Retry-After"));
            if (wait.isEmpty()) {
                return r;
            }
            discard(r);
            Thread.sleep(wait.get().toMillis());
        }
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        return sendAsync(request, handler, null, 0);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
                                                            HttpResponse.PushPromiseHandler<T> push) {
        return sendAsync(request, handler, push, 0);
    }

    private <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
                                                             HttpResponse.PushPromiseHandler<T> push, int retry) {
        CompletableFuture<HttpResponse<T>> sent = push == null ? delegate.sendAsync(request, handler)
                : delegate.sendAsync(request, handler, push);
        return sent.thenCompose(r -> policy.waitBefore(retry, r.statusCode(), r.headers().firstValue("Retry-After"))
                .map(wait -> {
                    discard(r);
                    Executor later = CompletableFuture.delayedExecutor(wait.toMillis(), TimeUnit.MILLISECONDS);
                    return CompletableFuture.supplyAsync(() -> null, later).thenCompose(x -> sendAsync(request, handler, push, retry + 1));
                })
                .orElseGet(() -> CompletableFuture.completedFuture(r)));
    }

    private static void discard(HttpResponse<?> r) {
        if (r.body() instanceof Closeable c) {
            try {
                c.close();
            } catch (IOException e) {
                // the answer is dropped anyway
            }
        }
    }

    @Override
    public Optional<CookieHandler> cookieHandler() {
        return delegate.cookieHandler();
    }

    @Override
    public Optional<Duration> connectTimeout() {
        return delegate.connectTimeout();
    }

    @Override
    public Redirect followRedirects() {
        return delegate.followRedirects();
    }

    @Override
    public Optional<ProxySelector> proxy() {
        return delegate.proxy();
    }

    @Override
    public SSLContext sslContext() {
        return delegate.sslContext();
    }

    @Override
    public SSLParameters sslParameters() {
        return delegate.sslParameters();
    }

    @Override
    public Optional<Authenticator> authenticator() {
        return delegate.authenticator();
    }

    @Override
    public Version version() {
        return delegate.version();
    }

    @Override
    public Optional<Executor> executor() {
        return delegate.executor();
    }

    @Override
    public WebSocket.Builder newWebSocketBuilder() {
        return delegate.newWebSocketBuilder();
    }
}
