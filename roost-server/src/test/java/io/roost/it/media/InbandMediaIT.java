package io.roost.it.media;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.Database;
import io.roost.it.DeployedRoost;
import io.roost.it.Http;
import io.roost.it.TestUsers.User;
import io.roost.it.WsDevice;
import jakarta.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.util.Arrays;
import java.util.Base64;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Small files over the device WebSocket ({@code mediaOp}): an upload in base64 chunks, each
 * answered with the upload's new offset and the last with the stored file; downloads in band of
 * what the user may see, chunk by chunk, the same bytes as over REST; and what is refused (a chunk
 * out of order, a chunk or a file whose bytes are not the SHA-256 declared for them, a file over the
 * in-band limit, a stranger's download), each leaving nothing stored.
 */
class InbandMediaIT extends DeployedRoost {

    /** ROOST_MEDIA_INBAND_MAX_BYTES's default (the suite does not set it). */
    private static final int INBAND_MAX = 1024 * 1024;
    /** The bytes of a chunk at the default frame limit (18,432 characters: 16,384 of base64 and 2,048 around them). */
    private static final int CHUNK_BYTES = 12_288;

    private MediaCalls media;
    private final java.util.List<WsDevice> devices = new java.util.ArrayList<>();

    @BeforeEach
    void calls() {
        media = new MediaCalls(baseUrl);
    }

    @AfterEach
    void close() {
        for (WsDevice d : devices) {
            try {
                d.bye();
            } catch (RuntimeException e) {
                // closed already
            }
        }
    }

    @Test
    void aFileGoesUpInChunksAndComesBackTheSameInBandAndOverRest() throws Exception {
        User a = media.user();
        WsDevice d = device(a);
        byte[] file = MediaFiles.pdf(100_000, 81L);

        JsonObject started = ok(mediaOp(d, "\"op\":\"upload\",\"size\":" + file.length + ",\"sha256\":\"" + MediaFiles.sha256(file)
                + "\",\"name\":\"notes.pdf\""));
        String upload = started.getString("upload");
        assertEquals(0, started.getJsonNumber("offset").longValue());
        assertEquals(file.length, started.getJsonNumber("size").longValue());
        assertEquals(CHUNK_BYTES, started.getInt("chunkBytes"), "the largest chunk at the default frame limit");

        JsonObject stored = null;
        int chunks = 0;
        for (int at = 0; at < file.length; at += CHUNK_BYTES) {
            byte[] chunk = Arrays.copyOfRange(file, at, Math.min(file.length, at + CHUNK_BYTES));
            JsonObject ret = ok(chunk(d, upload, at, chunk, MediaFiles.sha256(chunk)));
            chunks++;
            assertEquals(upload, ret.getString("upload"));
            assertEquals(at + chunk.length, ret.getJsonNumber("offset").longValue(), "each answer says the new offset");
            if (at + chunk.length < file.length) {
                assertFalse(ret.containsKey("file"), "no file before the last byte: " + ret);
                try (Connection db = Database.connect()) {
                    assertEquals(at + chunk.length, Database.queryLong(db, "SELECT received FROM media_upload WHERE id = ?",
                            Long.parseLong(upload)), "the chunk is committed when it is answered");
                }
            } else {
                stored = ret.getJsonObject("file");
            }
        }
        assertEquals(9, chunks, "100,000 bytes in chunks of 12,288");
        assertEquals(upload, stored.getString("id"), "the file has the upload's id");
        assertEquals(a.id(), stored.getString("owner"));
        assertEquals("application/pdf", stored.getString("mime"), "the type from the bytes");
        assertEquals("file", stored.getString("kind"));
        assertEquals("notes.pdf", stored.getString("name"));
        assertEquals(file.length, stored.getJsonNumber("size").longValue());
        assertEquals(MediaFiles.sha256(file), stored.getString("sha256"));
        assertEquals(Http.okJson(http().get("api/v1/media/" + upload, a.auth())), stored, "the same description as REST's");

        ByteArrayOutputStream inBand = new ByteArrayOutputStream();
        while (inBand.size() < file.length) {
            JsonObject ret = ok(mediaOp(d, "\"op\":\"download\",\"media\":\"" + upload + "\",\"offset\":" + inBand.size()));
            assertEquals(inBand.size(), ret.getJsonNumber("offset").longValue());
            assertEquals(file.length, ret.getJsonNumber("size").longValue());
            assertEquals("application/pdf", ret.getString("mime"));
            assertEquals(MediaFiles.sha256(file), ret.getString("sha256"));
            byte[] data = Base64.getDecoder().decode(ret.getString("data"));
            assertEquals(Math.min(CHUNK_BYTES, file.length - inBand.size()), data.length, "a chunk that fits the frame limit");
            assertEquals(data.length, ret.getInt("length"));
            inBand.write(data);
        }
        HttpResponse<byte[]> rest = media.get("api/v1/media/" + upload + "/content", a.auth());
        assertEquals(200, rest.statusCode());
        assertEquals(MediaFiles.sha256(file), MediaFiles.sha256(inBand.toByteArray()), "in band: the bytes uploaded");
        assertEquals(MediaFiles.sha256(file), MediaFiles.sha256(rest.body()), "over REST: the same bytes");
        assertArrayEquals(rest.body(), inBand.toByteArray());

        JsonObject part = ok(mediaOp(d, "\"op\":\"download\",\"media\":\"" + upload + "\",\"offset\":50000,\"length\":1000"));
        assertArrayEquals(Arrays.copyOfRange(file, 50_000, 51_000), Base64.getDecoder().decode(part.getString("data")),
                "the length asked, from the offset asked");
        assertEquals("range-not-satisfiable", fail(mediaOp(d, "\"op\":\"download\",\"media\":\"" + upload + "\",\"offset\":"
                + file.length)).getString("code"), "past the last byte");
    }

    @Test
    void aChunkOutOfOrderIsRefusedWithTheOffsetToContinueFrom() throws Exception {
        User a = media.user();
        WsDevice d = device(a);
        byte[] file = MediaFiles.pdf(30_000, 82L);
        String upload = start(d, file, MediaFiles.sha256(file));
        byte[] first = Arrays.copyOfRange(file, 0, 10_000);
        byte[] second = Arrays.copyOfRange(file, 10_000, 20_000);

        JsonObject ahead = fail(chunk(d, upload, 10_000, second, null));
        assertEquals("upload-offset-mismatch", ahead.getString("code"));
        assertEquals(0, ahead.getJsonNumber("offset").longValue(), "the answer says where to continue");
        assertEquals(10_000, ok(chunk(d, upload, 0, first, null)).getJsonNumber("offset").longValue());
        JsonObject again = fail(chunk(d, upload, 0, first, null));
        assertEquals("upload-offset-mismatch", again.getString("code"), "a chunk sent twice");
        assertEquals(10_000, again.getJsonNumber("offset").longValue());
        try (Connection db = Database.connect()) {
            long id = Long.parseLong(upload);
            assertEquals(1, Database.queryLong(db, "SELECT count(*) FROM media_chunk WHERE blob_id = ?", id), "only the chunk in order");
            assertEquals(10_000, Database.queryLong(db, "SELECT received FROM media_upload WHERE id = ?", id));
        }

        assertEquals(20_000, ok(chunk(d, upload, 10_000, second, null)).getJsonNumber("offset").longValue());
        JsonObject done = ok(chunk(d, upload, 20_000, Arrays.copyOfRange(file, 20_000, 30_000), null));
        assertEquals(MediaFiles.sha256(file), done.getJsonObject("file").getString("sha256"), "the upload went on as if nothing happened");
    }

    @Test
    void aChunkWhoseBytesAreNotItsHashIsRefusedAndNothingStored() throws Exception {
        User a = media.user();
        WsDevice d = device(a);
        byte[] file = MediaFiles.pdf(20_000, 83L);
        String upload = start(d, file, MediaFiles.sha256(file));
        byte[] first = Arrays.copyOfRange(file, 0, 10_000);
        byte[] damaged = first.clone();
        damaged[5_000] ^= 1;

        JsonObject refused = fail(chunk(d, upload, 0, damaged, MediaFiles.sha256(first)));
        assertEquals("chunk-hash-mismatch", refused.getString("code"), refused.toString());
        try (Connection db = Database.connect()) {
            long id = Long.parseLong(upload);
            assertEquals(0, Database.queryLong(db, "SELECT count(*) FROM media_chunk WHERE blob_id = ?", id), "nothing stored");
            assertEquals(0, Database.queryLong(db, "SELECT received FROM media_upload WHERE id = ?", id));
        }
        assertEquals(10_000, ok(chunk(d, upload, 0, first, MediaFiles.sha256(first))).getJsonNumber("offset").longValue(),
                "the chunk sent again, whole");
    }

    @Test
    void aFileWhoseBytesAreNotTheHashDeclaredIsRefusedAndNothingStored() throws Exception {
        User a = media.user();
        WsDevice d = device(a);
        byte[] file = MediaFiles.pdf(20_000, 84L);
        String upload = start(d, file, MediaFiles.sha256(MediaFiles.pdf(20_000, 85L)));
        ok(chunk(d, upload, 0, Arrays.copyOfRange(file, 0, 10_000), null));
        JsonObject refused = fail(chunk(d, upload, 10_000, Arrays.copyOfRange(file, 10_000, 20_000), null));
        assertEquals("media-hash-mismatch", refused.getString("code"), refused.toString());

        try (Connection db = Database.connect()) {
            long uid = Long.parseLong(a.id());
            assertEquals(0, Database.queryLong(db, "SELECT count(*) FROM media WHERE owner_uid = ?", uid), "no file");
            assertEquals(0, Database.queryLong(db, "SELECT count(*) FROM media_upload WHERE owner_uid = ?", uid), "the upload given up");
            assertEquals(0, Database.queryLong(db, "SELECT count(*) FROM media_chunk WHERE blob_id = ?", Long.parseLong(upload)),
                    "its bytes deleted");
            assertEquals(0, Database.queryLong(db, "SELECT bytes FROM media_usage WHERE owner_uid = ?", uid), "its reservation given back");
        }
        assertEquals("unknown-upload", fail(chunk(d, upload, 10_000, new byte[] {1}, null)).getString("code"));
    }

    @Test
    void anUploadHoldingEveryByteButNoFileIsCompletedByTheNextChunk() throws Exception {
        User a = media.user();
        WsDevice d = device(a);
        byte[] file = MediaFiles.pdf(20_000, 91L);
        String upload = start(d, file, MediaFiles.sha256(file));
        byte[] last = Arrays.copyOfRange(file, 10_000, 20_000);
        ok(chunk(d, upload, 0, Arrays.copyOfRange(file, 0, 10_000), null));
        try (Connection db = Database.connect()) { // what a completion that failed after the last chunk's commit leaves
            long id = Long.parseLong(upload);
            assertEquals(1, Database.execute(db, "INSERT INTO media_chunk (blob_id, start, data) VALUES (?, 10000, ?)", id, last));
            assertEquals(1, Database.execute(db, "UPDATE media_upload SET received = size WHERE id = ?", id));
        }
        JsonObject again = ok(chunk(d, upload, 10_000, last, MediaFiles.sha256(last)));
        assertEquals(20_000, again.getJsonNumber("offset").longValue());
        assertEquals(MediaFiles.sha256(file), again.getJsonObject("file").getString("sha256"), "the last chunk sent again: the file");
        assertArrayEquals(file, media.get("api/v1/media/" + upload + "/content", a.auth()).body());
    }

    @Test
    void filesOverTheInbandLimitGoOverRest() throws Exception {
        User a = media.user();
        WsDevice d = device(a);
        JsonObject refused = fail(mediaOp(d, "\"op\":\"upload\",\"size\":" + (INBAND_MAX + 1) + ",\"sha256\":\""
                + MediaFiles.sha256(new byte[] {1}) + "\""));
        assertEquals("media-too-large", refused.getString("code"));
        try (Connection db = Database.connect()) {
            assertEquals(0, Database.queryLong(db, "SELECT count(*) FROM media_upload WHERE owner_uid = ?", Long.parseLong(a.id())));
        }

        JsonObject big = media.stored(a, MediaFiles.pdf(INBAND_MAX + 1, 86L), null);
        JsonObject download = fail(mediaOp(d, "\"op\":\"download\",\"media\":\"" + big.getString("id") + "\""));
        assertEquals("media-too-large", download.getString("code"), "a file stored over REST, larger than the in-band limit");
        assertFalse(download.containsKey("data"));
    }

    @Test
    void aStrangerCannotDownloadOrContinueAnotherUsersUpload() throws Exception {
        User a = media.user();
        User b = media.user();
        WsDevice owner = device(a);
        WsDevice stranger = device(b);
        byte[] file = MediaFiles.pdf(5_000, 87L);
        String upload = start(owner, file, MediaFiles.sha256(file));
        assertEquals("unknown-upload", fail(chunk(stranger, upload, 0, file, null)).getString("code"));
        String id = ok(chunk(owner, upload, 0, file, null)).getJsonObject("file").getString("id");

        JsonObject refused = fail(mediaOp(stranger, "\"op\":\"download\",\"media\":\"" + id + "\""));
        assertEquals("unknown-media", refused.getString("code"), "as for a file that does not exist");
        assertFalse(refused.containsKey("data"));
        assertEquals("unknown-media", fail(mediaOp(stranger, "\"op\":\"download\",\"media\":\"" + Long.MAX_VALUE + "\"")).getString("code"));
        assertArrayEquals(file, Base64.getDecoder().decode(ok(mediaOp(owner, "\"op\":\"download\",\"media\":\"" + id + "\""))
                .getString("data")), "its owner gets it");
    }

    @Test
    void badFieldsAreRefusedWithTheirCodes() throws Exception {
        User a = media.user();
        WsDevice d = device(a);
        byte[] file = MediaFiles.pdf(20_000, 88L);
        assertEquals("invalid-sha256", fail(mediaOp(d, "\"op\":\"upload\",\"size\":100")).getString("code"), "required in band");
        assertEquals("invalid-size", fail(mediaOp(d, "\"op\":\"upload\",\"size\":\"100\",\"sha256\":\"" + MediaFiles.sha256(file)
                + "\"")).getString("code"));
        assertEquals("unknown-op", fail(mediaOp(d, "\"op\":\"rename\"")).getString("code"));
        String upload = start(d, file, MediaFiles.sha256(file));
        assertEquals("invalid-data", fail(mediaOp(d, "\"op\":\"chunk\",\"upload\":\"" + upload + "\",\"offset\":0,\"data\":\"*not base64*\""))
                .getString("code"));
        assertEquals("upload-offset-required", fail(mediaOp(d, "\"op\":\"chunk\",\"upload\":\"" + upload + "\",\"data\":\"AAAA\""))
                .getString("code"));
        byte[] tooMuch = MediaFiles.pdf(CHUNK_BYTES + 3, 89L); // its frame still fits the frame limit
        assertEquals("chunk-too-large", fail(chunk(d, upload, 0, tooMuch, null)).getString("code"));
        ok(chunk(d, upload, 0, Arrays.copyOfRange(file, 0, 10_000), null));
        assertEquals("upload-too-long", fail(chunk(d, upload, 10_000, MediaFiles.pdf(12_000, 90L), null)).getString("code"),
                "a chunk past the declared size");
        try (Connection db = Database.connect()) {
            assertEquals(10_000, Database.queryLong(db, "SELECT received FROM media_upload WHERE id = ?", Long.parseLong(upload)),
                    "none of the refused chunks stored");
        }
    }

    // ---- the frames ----

    private WsDevice device(User u) throws Exception {
        WsDevice d = WsDevice.login(baseUrl, u.token(), "pad", "p");
        devices.add(d);
        return d;
    }

    /** A mediaOp and its answer; a heartbeat first keeps the session (the suite's heartbeat timeout is short). */
    private static JsonObject mediaOp(WsDevice d, String fields) throws InterruptedException {
        d.heartbeat();
        return d.op("mediaOp", fields);
    }

    private static JsonObject chunk(WsDevice d, String upload, long offset, byte[] data, String sha256) throws InterruptedException {
        return mediaOp(d, "\"op\":\"chunk\",\"upload\":\"" + upload + "\",\"offset\":" + offset + ",\"data\":\""
                + Base64.getEncoder().encodeToString(data) + "\"" + (sha256 == null ? "" : ",\"sha256\":\"" + sha256 + "\""));
    }

    /** Starts an in-band upload of {@code file}'s size declaring {@code sha256}: its id. */
    private static String start(WsDevice d, byte[] file, String sha256) throws InterruptedException {
        JsonObject ret = ok(mediaOp(d, "\"op\":\"upload\",\"size\":" + file.length + ",\"sha256\":\"" + sha256 + "\""));
        assertEquals(0, ret.getJsonNumber("offset").longValue());
        return ret.getString("upload");
    }

    private static JsonObject ok(JsonObject ret) {
        assertEquals("ok", ret.getString("result"), ret.toString());
        assertEquals("mediaOpRet", ret.getString("type"));
        return ret;
    }

    private static JsonObject fail(JsonObject ret) {
        assertEquals("fail", ret.getString("result"), ret.toString());
        assertTrue(ret.containsKey("message"), ret.toString());
        return ret;
    }
}
