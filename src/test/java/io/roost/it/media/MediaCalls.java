package io.roost.it.media;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.roost.it.Http;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import jakarta.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Random;

/** The media calls the ITs share: uploads in one body or resumable, downloads with headers, and files to upload. */
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

    /** {@code n} random bytes after a PDF header (so that the type is one the server accepts), seeded. */
    public static byte[] pdf(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        byte[] head = "%PDF-1.4\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        System.arraycopy(head, 0, b, 0, head.length);
        return b;
    }

    public static String sha256(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A JPEG of {@code w} × {@code h} with an EXIF block (orientation {@code orientation}, a GPS latitude) after its SOI. */
    public static byte[] jpegWithExif(int w, int h, int orientation) throws IOException {
        java.awt.image.BufferedImage img = new java.awt.image.BufferedImage(w, h, java.awt.image.BufferedImage.TYPE_INT_RGB);
        java.awt.Graphics2D g = img.createGraphics();
        g.setColor(java.awt.Color.ORANGE);
        g.fillRect(0, 0, w / 2, h);
        g.dispose();
        ByteArrayOutputStream plain = new ByteArrayOutputStream();
        javax.imageio.ImageIO.write(img, "jpeg", plain);
        byte[] jpeg = plain.toByteArray();
        // TIFF, big-endian: IFD0 {Orientation, GPS IFD pointer}, then the GPS IFD {GPSLatitudeRef "N"}
        java.nio.ByteBuffer t = java.nio.ByteBuffer.allocate(8 + 2 + 2 * 12 + 4 + 2 + 12 + 4);
        t.put(new byte[] {'M', 'M', 0, 42}).putInt(8);
        t.putShort((short) 2);
        t.putShort((short) 0x0112).putShort((short) 3).putInt(1).putShort((short) orientation).putShort((short) 0);
        int gpsAt = 8 + 2 + 2 * 12 + 4;
        t.putShort((short) 0x8825).putShort((short) 4).putInt(1).putInt(gpsAt);
        t.putInt(0);
        t.putShort((short) 1);
        t.putShort((short) 0x0001).putShort((short) 2).putInt(2).put(new byte[] {'N', 0, 0, 0});
        t.putInt(0);
        byte[] tiff = t.array();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(jpeg, 0, 2); // SOI
        int length = 2 + 6 + tiff.length;
        out.write(new byte[] {(byte) 0xFF, (byte) 0xE1, (byte) (length >> 8), (byte) length});
        out.write("Exif\0\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        out.write(tiff);
        out.write(jpeg, 2, jpeg.length - 2);
        return out.toByteArray();
    }

    /** Whether {@code needle} occurs in {@code hay}. */
    public static boolean contains(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
