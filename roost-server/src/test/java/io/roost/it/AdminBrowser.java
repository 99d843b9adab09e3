package io.roost.it;

import static io.roost.it.Http.json;

import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** The admin console as a browser calls the API: keeps the session cookie, sends the CSRF token when it has one. */
public final class AdminBrowser {

    private final HttpClient client = HttpClient.newBuilder().cookieHandler(new CookieManager())
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final URI base;
    private String csrf;

    public AdminBrowser(URI base) {
        this.base = base;
    }

    public HttpResponse<String> send(String method, String path, String body, boolean withCsrf) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json");
        if (withCsrf && csrf != null) {
            b.header("X-CSRF-Token", csrf);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The CSRF token the last accepted sign-in gave, or null. */
    public String csrf() {
        return csrf;
    }

    public HttpResponse<String> signIn(String user, String password) throws Exception {
        var r = send("POST", "api/v1/admin/session", "{\"username\":\"" + user + "\",\"password\":\"" + password + "\"}", false);
        if (r.statusCode() == 200) {
            csrf = json(r).getString("csrfToken");
        }
        return r;
    }
}
