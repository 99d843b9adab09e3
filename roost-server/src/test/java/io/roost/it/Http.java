package io.roost.it;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.StringReader;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

/** A small HTTP client for the client-mode tests: real requests against the deployed server. */
public final class Http {

    public static final String ADMIN_USER = "admin";
    public static final String ADMIN_PASSWORD = "admin-test-password";
    /** The suite's admin (ROOST_ADMIN_USER / ROOST_ADMIN_PASSWORD in pom.xml), as an Authorization header. */
    public static final String ADMIN = basic(ADMIN_USER, ADMIN_PASSWORD);

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

    private final URI base;

    public Http(URI base) {
        this.base = base;
    }

    public Http(URL base) {
        this(URI.create(base.toString()));
    }

    public static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    public static String bearer(String token) {
        return "Bearer " + token;
    }

    public HttpResponse<String> get(String path, String authorization) {
        return send(request(path, authorization).GET().build());
    }

    /** A GET with more headers (e.g. X-Request-Id). */
    public HttpResponse<String> get(String path, String authorization, java.util.Map<String, String> headers) {
        HttpRequest.Builder b = request(path, authorization);
        headers.forEach(b::header);
        return send(b.GET().build());
    }

    public HttpResponse<String> post(String path, String authorization, String json) {
        return post(path, authorization, "application/json", json);
    }

    public HttpResponse<String> post(String path, String authorization, String contentType, String body) {
        return send(request(path, authorization).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    public HttpResponse<String> put(String path, String authorization, String json) {
        return send(request(path, authorization).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    public HttpResponse<String> patch(String path, String authorization, String json) {
        return send(request(path, authorization).header("Content-Type", "application/json")
                .method("PATCH", HttpRequest.BodyPublishers.ofString(json)).build());
    }

    public HttpResponse<String> delete(String path, String authorization) {
        return send(request(path, authorization).DELETE().build());
    }

    private HttpRequest.Builder request(String path, String authorization) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30))
                .header("Accept", "application/json, application/problem+json");
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return b;
    }

    private static HttpResponse<String> send(HttpRequest request) {
        try {
            return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError("request " + request.uri() + " failed: " + e, e);
        }
    }

    /**
     * The response, after checking that it succeeded (2xx): wraps every set-up call, so that a set-up
     * that failed fails the test there instead of making a later negative check pass vacuously.
     */
    public static HttpResponse<String> ok(HttpResponse<String> response) {
        int status = response.statusCode();
        if (status < 200 || status > 299) {
            throw new AssertionError(response.request().method() + " " + response.uri() + ": expected 2xx, got HTTP " + status
                    + ": " + response.body());
        }
        return response;
    }

    /** The JSON body of a response that must have succeeded ({@link #ok}). */
    public static JsonObject okJson(HttpResponse<String> response) {
        return json(ok(response));
    }

    public static JsonObject json(HttpResponse<String> response) {
        try {
            return json(response.body());
        } catch (AssertionError e) {
            throw new AssertionError("HTTP " + response.statusCode() + ": " + e.getMessage(), e);
        }
    }

    public static jakarta.json.JsonArray jsonArray(String body) {
        try (JsonReader reader = Json.createReader(new StringReader(body))) {
            return reader.readArray();
        } catch (RuntimeException e) {
            throw new AssertionError("not a JSON array: " + body, e);
        }
    }

    public static JsonObject json(String body) {
        try (JsonReader reader = Json.createReader(new StringReader(body))) {
            return reader.readObject();
        } catch (RuntimeException e) {
            throw new AssertionError("not a JSON object: " + body, e);
        }
    }
}
