package io.roost.client.rest;

import io.roost.client.rest.api.AdminApi;
import io.roost.client.rest.api.ChatApi;
import io.roost.client.rest.api.GatewayApi;
import io.roost.client.rest.api.GroupsApi;
import io.roost.client.rest.api.IdentityApi;
import io.roost.client.rest.api.MediaApi;
import io.roost.client.rest.api.PlatformApi;
import io.roost.client.rest.api.PresenceApi;
import io.roost.client.rest.api.RoomsApi;
import io.roost.client.rest.api.SocialApi;
import io.roost.client.rest.invoker.ApiClient;
import io.roost.client.rest.invoker.ApiException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * Roost's REST API for a back end: the client generated from the OpenAPI document
 * ({@link #chat()}, {@link #groups()}, … one per tag), sending with the caller's credentials
 * (bearer token or HTTP Basic) through one shared HttpClient, retrying a 503 as the
 * {@link RetryPolicy} says. {@link #call} turns a failed call into a {@link RoostProblemException};
 * {@link #pages} iterates a paged list. Thread-safe: make one per set of credentials and share it.
 *
 * <pre>{@code
 * RoostApi roost = RoostApi.builder(URI.create("https://roost.example.com/")).bearer(token).build();
 * ChatSent sent = roost.call(() -> roost.chat().sendChatMessage(new ChatSend().from(uid).peer(peer)
 *         .sendId("order-42").type(ChatSend.TypeEnum.TEXT).text("Your order shipped")));
 * }</pre>
 */
public final class RoostApi {

    /** A generated call, which throws the generator's checked {@link ApiException}. */
    @FunctionalInterface
    public interface Call<T> {
        T run() throws ApiException;
    }

    /** A generated call without a result. */
    @FunctionalInterface
    public interface Action {
        void run() throws ApiException;
    }

    private final ApiClient client;

    private RoostApi(Builder b) {
        HttpClient shared = new RetryingHttpClient(b.http != null ? b.http
                : HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build(), b.retries);
        String base = b.server.toString();
        client = new ApiClient(new SharedClient(shared), ApiClient.createDefaultObjectMapper(),
                base.endsWith("/") ? base.substring(0, base.length() - 1) : base);
        String authorization = b.authorization;
        client.setRequestInterceptor(r -> {
            if (authorization != null) {
                r.header("Authorization", authorization);
            }
        });
        client.setReadTimeout(b.timeout);
    }

    public static Builder builder(URI server) {
        return new Builder(server);
    }

    /** The generated client's configuration, for APIs made by hand ({@code new ChatApi(roost.apiClient())}). */
    public ApiClient apiClient() {
        return client;
    }

    public AdminApi admin() {
        return new AdminApi(client);
    }

    public ChatApi chat() {
        return new ChatApi(client);
    }

    public GatewayApi gateway() {
        return new GatewayApi(client);
    }

    public GroupsApi groups() {
        return new GroupsApi(client);
    }

    public IdentityApi identity() {
        return new IdentityApi(client);
    }

    public MediaApi media() {
        return new MediaApi(client);
    }

    public PlatformApi platform() {
        return new PlatformApi(client);
    }

    public PresenceApi presence() {
        return new PresenceApi(client);
    }

    public RoomsApi rooms() {
        return new RoomsApi(client);
    }

    public SocialApi social() {
        return new SocialApi(client);
    }

    /**
     * Runs a generated call: a failure the server answered is a {@link RoostProblemException}; a call
     * that got no answer is an {@link IllegalStateException} with the I/O error as its cause.
     */
    public <T> T call(Call<T> call) {
        try {
            return call.run();
        } catch (ApiException e) {
            throw problem(e);
        }
    }

    public void run(Action action) {
        call(() -> {
            action.run();
            return null;
        });
    }

    /**
     * Every item of a paged list: {@code fetch} gets a page for a cursor (null: the first) with a
     * generated call, {@code items} and {@code next} read the page ({@code PageUserView::getItems},
     * {@code PageUserView::getNext}). Each page through {@link #call}.
     */
    public <P, T> Stream<T> pages(Function<String, P> fetch, Function<P, List<T>> items, Function<P, String> next) {
        return new Pages<P, T>(fetch::apply, items, next).stream();
    }

    /** The problem a failed generated call carries. */
    public static RuntimeException problem(ApiException e) {
        if (e.getCode() == 0) { // no answer: the request did not get through
            return new IllegalStateException("no answer from Roost: " + e.getMessage(), e.getCause() != null ? e.getCause() : e);
        }
        RoostProblemException p = RoostProblemException.of(e.getCode(), e.getResponseBody());
        p.initCause(e);
        return p;
    }

    /** The server, credentials and HTTP settings. */
    public static final class Builder {
        private final URI server;
        private String authorization;
        private HttpClient http;
        private RetryPolicy retries = RetryPolicy.DEFAULT;
        private Duration timeout = Duration.ofSeconds(30);

        private Builder(URI server) {
            this.server = Objects.requireNonNull(server, "server");
        }

        /** {@code Authorization: Bearer <token>} (a token from {@code POST /api/v1/auth/tokens}). */
        public Builder bearer(String token) {
            this.authorization = "Bearer " + token;
            return this;
        }

        /** HTTP Basic with an account's user name and password. */
        public Builder basic(String user, String password) {
            this.authorization = "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
            return this;
        }

        /** No credentials: the public calls only (registration, login, health). */
        public Builder anonymous() {
            this.authorization = null;
            return this;
        }

        /** The HttpClient to share (with devices too). Default: one of its own, HTTP/1.1. */
        public Builder httpClient(HttpClient client) {
            this.http = client;
            return this;
        }

        /** When a 503 is retried. Default {@link RetryPolicy#DEFAULT}; {@link RetryPolicy#NONE} never. */
        public Builder retries(RetryPolicy policy) {
            this.retries = Objects.requireNonNull(policy);
            return this;
        }

        /** How long a call waits for its answer. Default 30 s. */
        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        public RoostApi build() {
            return new RoostApi(this);
        }
    }

    /** The generated client asks a builder for its HttpClient; this one always gives the shared client. */
    private record SharedClient(HttpClient client) implements HttpClient.Builder {
        @Override
        public HttpClient.Builder cookieHandler(CookieHandler cookieHandler) {
            throw unsupported();
        }

        @Override
        public HttpClient.Builder connectTimeout(Duration duration) {
            throw unsupported();
        }

        @Override
        public HttpClient.Builder sslContext(SSLContext sslContext) {
            throw unsupported();
        }

        @Override
        public HttpClient.Builder sslParameters(SSLParameters sslParameters) {
            throw unsupported();
        }

        @Override
        public HttpClient.Builder executor(Executor executor) {
            throw unsupported();
        }

        @Override
        public HttpClient.Builder followRedirects(HttpClient.Redirect policy) {
            throw unsupported();
        }

        @Override
        public HttpClient.Builder version(HttpClient.Version version) {
            throw unsupported();
        }

        @Override
        public HttpClient.Builder priority(int priority) {
            throw unsupported();
        }

        @Override
        public HttpClient.Builder proxy(ProxySelector proxySelector) {
            throw unsupported();
        }

        @Override
        public HttpClient.Builder authenticator(Authenticator authenticator) {
            throw unsupported();
        }

        @Override
        public HttpClient build() {
            return client;
        }

        private static UnsupportedOperationException unsupported() {
            return new UnsupportedOperationException("configure the HttpClient given to RoostApi.Builder.httpClient instead");
        }
    }
}
