package io.roost.it.media;

import static io.roost.it.Http.json;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.Database;
import io.roost.it.DeployedRoost;
import io.roost.it.Http;
import io.roost.it.TestUsers.User;
import io.roost.it.chat.Chats;
import io.roost.it.chat.GroupChats;
import jakarta.json.JsonObject;
import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Files through Roost over REST: uploads in one body and resumable after a cut connection, dedupe
 * by content, the type from the bytes, images' sizes, thumbnails and EXIF, the quota and the upload
 * rate, messages that name files, who may download them (participants, members by their visibility,
 * operators; everyone else 404), ranges and ETags, and signed links.
 */
class MediaIT extends DeployedRoost {

    /** The suite's ROOST_MEDIA_URL_SECRET (pom.xml), to sign a link that has expired. */
    private static final String LINK_SECRET = "it-media-link-secret-0123456789";

    private MediaCalls media;
    private Chats chats;
    private GroupChats groups;

    @BeforeEach
    void calls() {
        media = new MediaCalls(baseUrl);
        chats = new Chats(baseUrl);
        groups = new GroupChats(baseUrl);
    }

    @Test
    void uploadAndDownloadWithRangesAndEtag() throws Exception {
        User a = media.user();
        byte[] file = MediaFiles.pdf(700_000, 61L);
        JsonObject f = media.stored(a, file, "report.pdf");
        assertEquals("application/pdf", f.getString("mime"));
        assertEquals("file", f.getString("kind"));
        assertEquals(file.length, f.getJsonNumber("size").longValue());
        assertEquals(MediaFiles.sha256(file), f.getString("sha256"));
        String content = "api/v1/media/" + f.getString("id") + "/content";

        HttpResponse<byte[]> whole = media.get(content, a.auth());
        assertEquals(200, whole.statusCode());
        assertArrayEquals(file, whole.body(), "the bytes come back as they went in (PostgreSQL chunks, streamed)");
        assertEquals("application/pdf", whole.headers().firstValue("Content-Type").orElse(""));
        assertTrue(whole.headers().firstValue("Content-Disposition").orElse("").startsWith("attachment"), "a file is an attachment");
        assertEquals("nosniff", whole.headers().firstValue("X-Content-Type-Options").orElse(""));
        String etag = whole.headers().firstValue("ETag").orElseThrow();

        assertEquals(304, media.get(content, a.auth(), "If-None-Match", etag).statusCode());
        HttpResponse<byte[]> part = media.get(content, a.auth(), "Range", "bytes=262000-262999");
        assertEquals(206, part.statusCode(), "a range across a chunk boundary");
        assertArrayEquals(Arrays.copyOfRange(file, 262000, 263000), part.body());
        assertEquals("bytes 262000-262999/700000", part.headers().firstValue("Content-Range").orElse(""));
        HttpResponse<byte[]> tail = media.get(content, a.auth(), "Range", "bytes=-10");
        assertArrayEquals(Arrays.copyOfRange(file, file.length - 10, file.length), tail.body());
        HttpResponse<byte[]> past = media.get(content, a.auth(), "Range", "bytes=700000-");
        assertEquals(416, past.statusCode());
        assertEquals("bytes */700000", past.headers().firstValue("Content-Range").orElse(""));
    }

    @Test
    void theSameContentTwiceIsOneFile() throws Exception {
        User a = media.user();
        byte[] file = MediaFiles.pdf(300_000, 62L);
        String first = media.stored(a, file, null).getString("id");
        String again = media.stored(a, file, null).getString("id");
        assertEquals(first, again, "the same user's same content: the same id");
        try (Connection db = Database.connect()) {
            assertEquals(1, Database.queryLong(db, "SELECT count(*) FROM media WHERE owner_uid = ?", Long.parseLong(a.id())));
            assertEquals(file.length, Database.queryLong(db, "SELECT bytes FROM media_usage WHERE owner_uid = ?", Long.parseLong(a.id())),
                    "stored once, counted once");
            assertEquals(0, Database.queryLong(db, "SELECT count(*) FROM media_upload WHERE owner_uid = ?", Long.parseLong(a.id())));
        }
    }

    @Test
    void theTypeComesFromTheBytesAndTheAllowListRefusesTheRest() throws Exception {
        User a = media.user();
        java.io.ByteArrayOutputStream png = new java.io.ByteArrayOutputStream();
        ImageIO.write(new java.awt.image.BufferedImage(30, 20, java.awt.image.BufferedImage.TYPE_INT_ARGB), "png", png);
        HttpResponse<String> lying = media.upload(a.auth(), png.toByteArray(), "?name=notes.txt", "text/html");
        assertEquals(201, lying.statusCode(), lying.body());
        assertEquals("image/png", json(lying).getString("mime"), "neither the name nor the Content-Type decide");
        assertEquals(30, json(lying).getInt("width"));

        byte[] html = "<!DOCTYPE html><html><body><script>alert(1)</script></body></html>".getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> refused = media.upload(a.auth(), html, "?name=photo.jpg", "image/jpeg");
        assertEquals(415, refused.statusCode(), refused.body());
        assertEquals("media-type-not-allowed", code(refused));
        try (Connection db = Database.connect()) {
            long uid = Long.parseLong(a.id());
            assertEquals(1, Database.queryLong(db, "SELECT count(*) FROM media WHERE owner_uid = ?", uid), "nothing stored for the refused file");
            assertEquals(0, Database.queryLong(db, "SELECT count(*) FROM media_upload WHERE owner_uid = ?", uid));
            assertEquals(Database.queryLong(db, "SELECT size + coalesce(thumb_size, 0) FROM media WHERE owner_uid = ?", uid),
                    Database.queryLong(db, "SELECT bytes FROM media_usage WHERE owner_uid = ?", uid), "its reservation given back: what the user holds is the PNG and its thumbnail");
        }
    }

    @Test
    void anImageGetsItsSizeAThumbnailAndLosesItsExif() throws Exception {
        User a = media.user();
        byte[] photo = MediaFiles.jpegWithExif(640, 480, 6); // stored landscape, shown turned: 480 × 640
        assertTrue(MediaFiles.contains(photo, "Exif".getBytes(StandardCharsets.US_ASCII)));
        JsonObject f = media.stored(a, photo, "beach.jpg");
        assertEquals("image", f.getString("kind"));
        assertEquals(480, f.getInt("width"), "the orientation is applied");
        assertEquals(640, f.getInt("height"));
        assertTrue(f.getBoolean("thumbnail"));

        byte[] served = media.get("api/v1/media/" + f.getString("id") + "/content", a.auth()).body();
        assertFalse(MediaFiles.contains(served, "Exif".getBytes(StandardCharsets.US_ASCII)), "no EXIF (location, camera) in what is served");
        java.awt.image.BufferedImage shown = ImageIO.read(new ByteArrayInputStream(served));
        assertEquals(480, shown.getWidth());
        assertEquals(640, shown.getHeight());
        assertEquals(MediaFiles.sha256(served), f.getString("sha256"), "the ETag and sha256 are of the bytes served");

        HttpResponse<byte[]> thumb = media.get("api/v1/media/" + f.getString("id") + "/thumbnail", a.auth());
        assertEquals(200, thumb.statusCode());
        assertEquals("image/jpeg", thumb.headers().firstValue("Content-Type").orElse(""));
        java.awt.image.BufferedImage t = ImageIO.read(new ByteArrayInputStream(thumb.body()));
        assertEquals(320, Math.max(t.getWidth(), t.getHeight()), "the longer side is ROOST_MEDIA_THUMBNAIL_PIXELS");
        assertEquals(240, t.getWidth());
    }

    @Test
    void aResumableUploadContinuesWhereTheCutConnectionLeftIt() throws Exception {
        User a = media.user();
        byte[] file = MediaFiles.pdf(900_000, 63L);
        JsonObject started = Http.okJson(http().post("api/v1/media/uploads", a.auth(),
                "{\"size\":" + file.length + ",\"sha256\":\"" + MediaFiles.sha256(file) + "\",\"name\":\"big.pdf\"}"));
        String upload = started.getString("id");
        assertEquals(0, started.getJsonNumber("offset").longValue());

        // a connection cut after 600,000 of the body's 900,000 bytes
        java.net.URI u = base();
        try (Socket s = new Socket(u.getHost(), u.getPort())) {
            OutputStream out = s.getOutputStream();
            out.write(("PUT /api/v1/media/uploads/" + upload + " HTTP/1.1\r\nHost: " + u.getHost() + "\r\nAuthorization: " + a.auth()
                    + "\r\nContent-Type: application/octet-stream\r\nUpload-Offset: 0\r\nContent-Length: " + file.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(file, 0, 600_000);
            out.flush();
            long until = System.nanoTime() + 20_000_000_000L;
            while (offset(a, upload) < 524_288 && System.nanoTime() < until) { // the chunks that arrived whole are committed
                Thread.sleep(50);
            }
        }
        long committed = awaitSettled(a, upload);
        assertTrue(committed >= 524_288 && committed <= 600_000, "committed " + committed);

        assertEquals("upload-offset-mismatch", code(media.append(a.auth(), upload, 0, file)), "not from the start again");
        HttpResponse<String> done = media.append(a.auth(), upload, committed, Arrays.copyOfRange(file, (int) committed, file.length));
        assertEquals(201, done.statusCode(), done.body());
        JsonObject f = json(done);
        assertEquals(MediaFiles.sha256(file), f.getString("sha256"));
        assertArrayEquals(file, media.get("api/v1/media/" + f.getString("id") + "/content", a.auth()).body());
    }

    @Test
    void aWrongHashStoresNothing() throws Exception {
        User a = media.user();
        byte[] file = MediaFiles.pdf(10_000, 64L);
        JsonObject started = Http.okJson(http().post("api/v1/media/uploads", a.auth(),
                "{\"size\":" + file.length + ",\"sha256\":\"" + MediaFiles.sha256(new byte[] {1}) + "\"}"));
        HttpResponse<String> r = media.append(a.auth(), started.getString("id"), 0, file);
        assertEquals(422, r.statusCode(), r.body());
        assertEquals("media-hash-mismatch", code(r));
        assertEquals("upload-too-long", code(media.append(a.auth(), Http.okJson(http().post("api/v1/media/uploads", a.auth(),
                "{\"size\":10}")).getString("id"), 0, file)));
        try (Connection db = Database.connect()) {
            assertEquals(0, Database.queryLong(db, "SELECT count(*) FROM media WHERE owner_uid = ?", Long.parseLong(a.id())));
            assertEquals(0, Database.queryLong(db, "SELECT count(*) FROM media_chunk WHERE blob_id = ?", Long.parseLong(started.getString("id"))));
        }
    }

    @Test
    void theQuotaAndTheUploadRate() throws Exception {
        User a = media.user();
        HttpResponse<String> tooMuch = http().post("api/v1/media/uploads", a.auth(), "{\"size\":9000000}");
        assertEquals(413, tooMuch.statusCode());
        assertEquals("media-quota-exceeded", code(tooMuch), "ROOST_MEDIA_QUOTA_BYTES is 8 MiB in the suite");
        assertEquals("media-too-large", code(http().post("api/v1/media/uploads", a.auth(), "{\"size\":200000000}")));

        User b = media.user();
        for (int i = 0; i < 12; i++) {
            media.stored(b, MediaFiles.pdf(100, 1000 + i), null);
        }
        HttpResponse<String> limited = media.upload(b.auth(), MediaFiles.pdf(100, 99), "", "application/pdf");
        assertEquals(429, limited.statusCode(), "12 uploads a minute in the suite");
        assertEquals("media-rate-limited", code(limited));
        assertTrue(limited.headers().firstValue("Retry-After").isPresent());
    }

    @Test
    void aMessageNamesAFileAndOnlyThoseWhoSeeTheMessageGetIt() throws Exception {
        User a = media.user();
        User b = media.user();
        User stranger = media.user();
        JsonObject photo = media.stored(a, MediaFiles.jpegWithExif(64, 48, 1), "cat.jpg");
        String id = photo.getString("id");
        String path = "api/v1/media/" + id + "/content";
        assertEquals(404, media.get(path, b.auth()).statusCode(), "before any message names it, only its uploader sees it");

        HttpResponse<String> wrongKind = chats.send(a.auth(), "\"peer\":\"" + b.id() + "\",\"sendId\":\"" + Chats.sid()
                + "\",\"type\":\"voice\",\"media\":{\"id\":\"" + id + "\"}");
        assertEquals("media-type-mismatch", code(wrongKind));
        HttpResponse<String> sent = chats.send(a.auth(), "\"peer\":\"" + b.id() + "\",\"sendId\":\"" + Chats.sid()
                + "\",\"type\":\"image\",\"media\":{\"id\":\"" + id + "\",\"size\":1}");
        assertEquals(400, sent.statusCode(), "a client does not say what the file is");
        sent = chats.send(a.auth(), "\"peer\":\"" + b.id() + "\",\"sendId\":\"" + Chats.sid()
                + "\",\"type\":\"image\",\"media\":{\"id\":\"" + id + "\"}");
        assertEquals(201, sent.statusCode(), sent.body());

        JsonObject seen = chats.items(b, a).getValuesAs(JsonObject.class).stream().filter(m -> m.containsKey("media")).findFirst().orElseThrow();
        JsonObject m = seen.getJsonObject("media");
        assertEquals(id, m.getString("id"));
        assertEquals(64, m.getInt("width"), "the server fills in what the file is");
        assertEquals("image/jpeg", m.getString("mime"));
        assertEquals("/" + path, m.getString("url"));
        assertEquals(200, media.get(m.getString("url"), b.auth()).statusCode(), "the other participant gets it");
        assertEquals(200, media.get(m.getString("thumbnail"), b.auth()).statusCode());
        assertEquals(200, media.get(path, Http.ADMIN).statusCode(), "an operator gets it");
        for (String p : new String[] {path, "api/v1/media/" + id, "api/v1/media/" + id + "/thumbnail"}) {
            assertEquals(404, media.get(p, stranger.auth()).statusCode(), "a stranger is told it does not exist: " + p);
        }
        assertEquals("unknown-media", code(chats.send(stranger.auth(), "\"peer\":\"" + a.id() + "\",\"sendId\":\"" + Chats.sid()
                + "\",\"type\":\"image\",\"media\":{\"id\":\"" + id + "\"}")), "a message may not name someone else's file");
        assertEquals(201, chats.send(b.auth(), "\"peer\":\"" + stranger.id() + "\",\"sendId\":\"" + Chats.sid()
                + "\",\"type\":\"image\",\"media\":{\"id\":\"" + id + "\"}").statusCode(), "one who sees the file may forward it");
        assertEquals(200, media.get(path, stranger.auth()).statusCode(), "and then its recipient sees it");

        HttpResponse<String> external = chats.send(a.auth(), "\"peer\":\"" + b.id() + "\",\"sendId\":\"" + Chats.sid()
                + "\",\"type\":\"file\",\"media\":{\"url\":\"https://cdn.example/x.zip\",\"size\":10,\"mime\":\"application/zip\"}");
        assertEquals(201, external.statusCode(), external.body());
        assertTrue(chats.items(b, a).getValuesAs(JsonObject.class).stream().filter(x -> x.containsKey("media"))
                .map(x -> x.getJsonObject("media")).anyMatch(x -> "https://cdn.example/x.zip".equals(x.getString("url", null))
                        && x.getBoolean("external", false)), "an external URL is marked as one");
    }

    @Test
    void groupMembersSeeAFileByTheirVisibility() throws Exception {
        User owner = groups.user();
        User early = groups.user();
        User late = groups.user();
        String g = groups.group(owner, "chat", early);
        String before = media.stored(owner, MediaFiles.pdf(5_000, 65L), "before.pdf").getString("id");
        assertEquals(201, http().post("api/v1/chat/groups/" + g + "/messages", owner.auth(), "{\"sendId\":\"" + Chats.sid()
                + "\",\"type\":\"file\",\"media\":{\"id\":\"" + before + "\"}}").statusCode());
        Http.ok(http().post("api/v1/groups/" + g + "/join", late.auth(), "{}"));
        assertEquals(200, media.get("api/v1/media/" + before + "/content", early.auth()).statusCode(), "a member when it was sent");
        assertEquals(404, media.get("api/v1/media/" + before + "/content", late.auth()).statusCode(), "joined after it: not visible");

        Http.ok(http().delete("api/v1/groups/" + g + "/members/" + early.id(), early.auth())); // it leaves
        String after = media.stored(owner, MediaFiles.pdf(5_000, 66L), "after.pdf").getString("id");
        assertEquals(201, http().post("api/v1/chat/groups/" + g + "/messages", owner.auth(), "{\"sendId\":\"" + Chats.sid()
                + "\",\"type\":\"file\",\"media\":{\"id\":\"" + after + "\"}}").statusCode());
        assertEquals(200, media.get("api/v1/media/" + before + "/content", early.auth()).statusCode(), "what it saw before leaving stays");
        assertEquals(404, media.get("api/v1/media/" + after + "/content", early.auth()).statusCode(), "nothing after it left");
        assertEquals(200, media.get("api/v1/media/" + after + "/content", late.auth()).statusCode());
    }

    @Test
    void signedLinksExpireAndEndWithARecall() throws Exception {
        User a = media.user();
        User b = media.user();
        String id = media.stored(a, MediaFiles.pdf(20_000, 67L), "link.pdf").getString("id");
        JsonObject sent = chats.sendMedia(a, b, "file", id);
        String msgId = sent.getString("msgId");
        JsonObject link = Http.okJson(http().post("api/v1/media/" + id + "/links", b.auth(), "{\"msgId\":\"" + msgId + "\"}"));
        String url = link.getString("url");
        assertEquals(200, media.get(url, null).statusCode(), "a link needs no credentials");
        String forged = url.substring(0, url.length() - 4) + (url.endsWith("AAAA") ? "BBBB" : "AAAA");
        assertEquals(403, media.get(forged, null).statusCode());
        long past = System.currentTimeMillis() / 1000 - 5;
        String expired = "api/v1/media-links/" + id + "?msg=" + msgId + "&exp=" + past + "&sig=" + sign(id + "." + msgId + "." + past);
        assertEquals(403, media.get(expired, null).statusCode(), "signed by the server, but expired");
        assertEquals("not-in-message", code(http().post("api/v1/media/" + id + "/links", b.auth(), "{\"msgId\":\"42\"}")));

        Http.ok(chats.recall(a, a.auth(), b, sent.getJsonNumber("seq").longValue()));
        assertEquals(404, media.get(url, null).statusCode(), "a recalled message's links end before they expire");
        assertEquals(404, media.get("api/v1/media/" + id + "/content", b.auth()).statusCode(), "and so does the recipient's access");
    }

    @Test
    void anOperatorRemovesAFileAndItsMessagesSaySo() throws Exception {
        User a = media.user();
        User b = media.user();
        String id = media.stored(a, MediaFiles.pdf(40_000, 68L), "gone.pdf").getString("id");
        chats.sendMedia(a, b, "file", id);
        String content = "api/v1/media/" + id + "/content";
        assertEquals(200, media.get(content, b.auth()).statusCode());

        HttpResponse<String> removed = http().delete("api/v1/admin/media/" + id, Http.ADMIN);
        assertEquals(200, removed.statusCode(), removed.body());
        assertEquals(id, json(removed).getString("id"));
        HttpResponse<byte[]> gone = media.get(content, b.auth());
        assertEquals(410, gone.statusCode());
        assertEquals("media-removed", code(Http.json(new String(gone.body(), StandardCharsets.UTF_8))), "its bytes are gone");
        JsonObject m = chats.items(b, a).getValuesAs(JsonObject.class).stream().filter(x -> x.containsKey("media")).findFirst()
                .orElseThrow().getJsonObject("media");
        assertTrue(m.getBoolean("removed"), m.toString());
        assertFalse(m.containsKey("url"), "no path to bytes that are gone");
        assertEquals("unknown-media", code(http().delete("api/v1/admin/media/" + id, Http.ADMIN)), "removed once");
        try (Connection db = Database.connect()) {
            assertEquals(2, Database.queryLong(db, "SELECT count(*) FROM admin_audit WHERE action = 'remove-media' AND target_id = ?", id),
                    "both attempts audited");
            assertEquals(0, Database.queryLong(db, "SELECT coalesce(sum(bytes), 0) FROM media_usage WHERE owner_uid = ?",
                    Long.parseLong(a.id())), "its bytes given back to the uploader's quota");
        }
    }

    private static String sign(String text) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(LINK_SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal(text.getBytes(StandardCharsets.US_ASCII)));
    }

    private long offset(User a, String upload) {
        return json(http().get("api/v1/media/uploads/" + upload, a.auth())).getJsonNumber("offset").longValue();
    }

    /** The upload's offset once two reads a moment apart agree (the server has seen the cut). */
    private long awaitSettled(User a, String upload) throws InterruptedException {
        long last = -1;
        for (int i = 0; i < 100; i++) {
            long now = offset(a, upload);
            if (now == last) {
                return now;
            }
            last = now;
            Thread.sleep(200);
        }
        return last;
    }

    private static String code(HttpResponse<String> r) {
        return code(json(r));
    }

    private static String code(JsonObject problem) {
        assertNotNull(problem.getString("type", null), problem.toString());
        return problem.getString("type").replaceAll(".*:", "");
    }
}
