package io.roost.it.media;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.roost.it.Http;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** The media calls the ITs share: uploads in one body or resumable, downloads with headers ({@link MediaFiles} makes the files). */
public final class MediaCalls {

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    private final URL base;

    public MediaCalls(URL base) {
        this.base = base;
    }

    public User user() throws Exception {
        return TestUsers.registerWithoutPassword(base, "media-", "pad", "p");
    }

    /** POST /api/v1/media with {@code bytes} as the body; {@code query} (e.g. {@code ?name=a.png}) may be empty. */
    public HttpResponse<String> upload(String authorization, byte[] bytes, String query, String contentType) {
        return send(request("api/v1/media" + query, authorization).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofByteArray(bytes)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** An upload that must succeed: the stored file. */
    public JsonObject stored(User owner, byte[] bytes, String name) {
        HttpResponse<String> r = upload(owner.auth(), bytes, name == null ? "" : "?name=" + name, "application/octet-stream");
        assertEquals(201, r.statusCode(), r.body());
        return Http.json(r);
    }

    /** PUT bytes to a resumable upload from {@code offset}. */
    public HttpResponse<String> append(String authorization, String upload, long offset, byte[] bytes) {
        return send(request("api/v1/media/uploads/" + upload, authorization).header("Content-Type", "application/octet-stream")
                .header("Upload-Offset", Long.toString(offset)).PUT(HttpRequest.BodyPublishers.ofByteArray(bytes)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** GET {@code path} (relative to the server) with {@code headers} (name, value, ...): the answer with its bytes. */
    public HttpResponse<byte[]> get(String path, String authorization, String... headers) {
        HttpRequest.Builder b = request(path.startsWith("/") ? path.substring(1) : path, authorization);
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return send(b.GET().build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private HttpRequest.Builder request(String path, String authorization) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base.toString()).resolve(path)).timeout(Duration.ofSeconds(60))
                .header("Accept", "*/*");
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return b;
    }

    private static <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        try {
            return CLIENT.send(request, handler);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
