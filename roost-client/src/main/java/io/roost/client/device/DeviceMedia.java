package io.roost.client.device;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.roost.client.rest.RetryPolicy;
import io.roost.client.rest.RoostProblemException;
import io.roost.client.rest.invoker.ApiClient;
import io.roost.client.rest.model.MediaFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * A device's files over REST, with its token (docs/api.md, Media): resumable uploads in chunks
 * that survive a cut connection (the upload is asked where it stands and continues from there),
 * and downloads (following the bucket's redirect without the token). Failures are
 * {@link RoostProblemException}s; a 503 is retried as {@link RetryPolicy#DEFAULT} says.
 */
public final class DeviceMedia {

    /** Bytes per PUT: the server commits a body in 256 KiB chunks as they arrive. */
    static final int CHUNK = 1024 * 1024;
    /** Attempts to continue an upload after a request that failed without an answer. */
    private static final int RESUMES = 5;
    private static final ObjectMapper MAPPER = ApiClient.createDefaultObjectMapper();

    private final URI server;
    private final String authorization;
    private final HttpClient http;
    private final Executor executor;
    private final RetryPolicy retries = RetryPolicy.DEFAULT;

    DeviceMedia(URI server, String token, HttpClient http, Executor executor) {
        String base = server.toString();
        this.server = URI.create(base.endsWith("/") ? base : base + "/");
        this.authorization = "Bearer " + token;
        this.http = http;
        this.executor = executor;
    }

    /** Uploads {@code bytes} as a file named {@code name} (may be null); completes with the stored file. */
    public CompletableFuture<MediaFile> upload(byte[] bytes, String name) {
        String body = MAPPER.createObjectNode().put("size", bytes.length).put("sha256", sha256(bytes))
                .put("name", name).toString();
        HttpRequest start = request("api/v1/media/uploads").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return call(start, 0).thenCompose(r -> {
            JsonNode upload = json(expect(r, 201));
            return append(upload.path("id").asText(), upload.path("offset").asLong(), bytes, RESUMES);
        });
    }

    private CompletableFuture<MediaFile> append(String upload, long offset, byte[] bytes, int resumes) {
        int from = (int) offset;
        int to = Math.min(bytes.length, from + CHUNK);
        HttpRequest put = request("api/v1/media/uploads/" + upload).header("Content-Type", "application/octet-stream")
                .header("Upload-Offset", Long.toString(offset))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(Arrays.copyOfRange(bytes, from, to))).build();
        return call(put, 0).handle((r, e) -> {
            if (e != null) { // no answer: ask where the upload stands
                if (resumes == 0) {
                    return CompletableFuture.<MediaFile>failedFuture(e);
                }
                return resume(upload, bytes, resumes - 1);
            }
            if (r.statusCode() == 201) {
                return CompletableFuture.completedFuture(file(r));
            }
            if (r.statusCode() == 200) {
                return append(upload, json(r).path("offset").asLong(), bytes, resumes);
            }
            if (r.statusCode() == 409 && resumes > 0) { // upload-offset-mismatch: continue from where it stands
                return resume(upload, bytes, resumes - 1);
            }
            throw RoostProblemException.of(r.statusCode(), r.body());
        }).thenCompose(f -> f);
    }

    private CompletableFuture<MediaFile> resume(String upload, byte[] bytes, int resumes) {
        return call(request("api/v1/media/uploads/" + upload).GET().build(), 0).thenCompose(r -> {
            if (r.statusCode() == 404) {
                // the last chunk's answer was lost: the file has the upload's id
                return file(upload);
            }
            return append(upload, json(expect(r, 200)).path("offset").asLong(), bytes, resumes);
        });
    }

    /** The description of file {@code mediaId}. */
    public CompletableFuture<MediaFile> file(String mediaId) {
        return call(request("api/v1/media/" + mediaId).GET().build(), 0).thenApply(r -> file(expect(r, 200)));
    }

    /** The bytes of file {@code mediaId}. */
    public CompletableFuture<byte[]> download(String mediaId) {
        HttpRequest get = request("api/v1/media/" + mediaId + "/content").header("Accept", "*/*").GET().build();
        return send(get, HttpResponse.BodyHandlers.ofByteArray(), 0).thenCompose(r -> {
            if (r.statusCode() == 307 || r.statusCode() == 302 || r.statusCode() == 303) {
                // the bucket's signed URL: no Roost credentials there
                URI to = get.uri().resolve(r.headers().firstValue("Location").orElseThrow());
                return send(HttpRequest.newBuilder(to).timeout(Duration.ofSeconds(60)).GET().build(),
                        HttpResponse.BodyHandlers.ofByteArray(), 0);
            }
            return CompletableFuture.completedFuture(r);
        }).thenApply(r -> {
            if (r.statusCode() != 200) {
                throw RoostProblemException.of(r.statusCode(), new String(r.body(), java.nio.charset.StandardCharsets.UTF_8));
            }
            return r.body();
        });
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(server.resolve(path)).timeout(Duration.ofSeconds(60))
                .header("Authorization", authorization).header("Accept", "application/json, application/problem+json");
    }

    private CompletableFuture<HttpResponse<String>> call(HttpRequest request, int retry) {
        return send(request, HttpResponse.BodyHandlers.ofString(), retry);
    }

    /** Sends; a 503 again after its Retry-After, as the policy allows. */
    private <T> CompletableFuture<HttpResponse<T>> send(HttpRequest request, HttpResponse.BodyHandler<T> handler, int retry) {
        return http.sendAsync(request, handler).thenComposeAsync(r -> retries
                .waitBefore(retry, r.statusCode(), r.headers().firstValue("Retry-After"))
                .map(wait -> CompletableFuture.supplyAsync(() -> null,
                                CompletableFuture.delayedExecutor(wait.toMillis(), TimeUnit.MILLISECONDS, executor))
                        .thenCompose(x -> send(request, handler, retry + 1)))
                .orElseGet(() -> CompletableFuture.completedFuture(r)), executor);
    }

    private static HttpResponse<String> expect(HttpResponse<String> r, int status) {
        if (r.statusCode() != status) {
            throw RoostProblemException.of(r.statusCode(), r.body());
        }
        return r;
    }

    private static JsonNode json(HttpResponse<String> r) {
        try {
            return MAPPER.readTree(r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static MediaFile file(HttpResponse<String> r) {
        try {
            return MAPPER.readValue(r.body(), MediaFile.class);
        } catch (IOException e) {
            throw new CompletionException(e);
        }
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
