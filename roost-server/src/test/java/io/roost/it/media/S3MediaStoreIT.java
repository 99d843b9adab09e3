package io.roost.it.media;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.roost.media.store.S3MediaStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The s3 store against the suite's real S3-compatible server (S3Proxy, run by the dev services):
 * a blob in, its ranges out, a payload the SDK reads more than once, deletion, and the signed URLs
 * a redirect sends clients to (the bucket answers with Roost's content type, disposition and cache
 * control, and the range the client asks; a tampered URL is refused).
 */
class S3MediaStoreIT {

    private static final String ENDPOINT = System.getProperty("roost.test.s3.endpoint", "http://127.0.0.1:13090");

    private final S3MediaStore store = new S3MediaStore(new S3MediaStore.Bucket(ENDPOINT, "us-east-1", "roost-it-store", "roost",
            "roost-dev-secret", true, true, null));

    @Test
    void aBlobGoesInAndItsRangesComeOut() throws Exception {
        byte[] file = MediaFiles.pdf(600_000, 91L);
        long blob = System.nanoTime();
        AtomicInteger opened = new AtomicInteger();
        store.put(blob, () -> {
            opened.incrementAndGet();
            return new ByteArrayInputStream(file);
        }, file.length, "application/pdf");
        try (InputStream in = store.open(blob, 0, file.length)) {
            assertArrayEquals(file, in.readAllBytes());
        }
        try (InputStream in = store.open(blob, 262_100, 1_000)) {
            assertArrayEquals(Arrays.copyOfRange(file, 262_100, 263_100), in.readAllBytes(), "a range is the bucket's to cut");
        }
        store.delete(blob);
        assertThrows(IOException.class, () -> store.open(blob, 0, 10).read(), "gone");
    }

    @Test
    void aSignedUrlServesTheBytesAsRoostWouldAndOnlyAsSigned() throws Exception {
        byte[] file = MediaFiles.pdf(50_000, 92L);
        long blob = System.nanoTime();
        store.put(blob, () -> new ByteArrayInputStream(file), file.length, "application/pdf");
        java.net.URI url = store.signedUrl(blob, Duration.ofMinutes(1), "application/pdf", "attachment; filename*=UTF-8''a.pdf",
                "private, max-age=31536000, immutable");
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<byte[]> whole = http.send(HttpRequest.newBuilder(url).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, whole.statusCode());
        assertArrayEquals(file, whole.body());
        assertEquals("application/pdf", whole.headers().firstValue("Content-Type").orElse(""));
        assertEquals("attachment; filename*=UTF-8''a.pdf", whole.headers().firstValue("Content-Disposition").orElse(""));
        assertEquals("private, max-age=31536000, immutable", whole.headers().firstValue("Cache-Control").orElse(""));
        HttpResponse<byte[]> part = http.send(HttpRequest.newBuilder(url).header("Range", "bytes=100-199").build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(206, part.statusCode());
        assertArrayEquals(Arrays.copyOfRange(file, 100, 200), part.body());
        String forged = url.toString().replace("X-Amz-Expires=60", "X-Amz-Expires=6000");
        assertEquals(403, http.send(HttpRequest.newBuilder(java.net.URI.create(forged)).build(), HttpResponse.BodyHandlers.discarding())
                .statusCode(), "the signature covers the expiry");
        store.delete(blob);
    }
}
