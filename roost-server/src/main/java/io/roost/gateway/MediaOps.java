package io.roost.gateway;

import io.roost.media.MediaLibrary;
import io.roost.media.MediaProblems;
import io.roost.media.MediaSettings;
import io.roost.media.MediaUploads;
import io.roost.media.Sha256;
import io.roost.media.UploadStatus;
import io.roost.platform.ids.Ids;
import io.roost.platform.problem.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.util.Base64;

/**
 * {@code mediaOp} frames: small files (at most {@code ROOST_MEDIA_INBAND_MAX_BYTES}) uploaded and
 * downloaded over the device's own WebSocket, as base64 chunks that fit its frame limit. An in-band
 * upload is a resumable upload of the media module like one over REST ({@code upload} starts it,
 * each {@code chunk} commits its bytes from the offset the upload holds, the last one makes it a
 * file); {@code download} answers a range of a file the user may see. Answered with
 * {@code mediaOpRet} (the request's {@code seq}, {@code result} ok/fail, the problem type as
 * {@code code}); every op waits on the database, so it runs on a worker thread, like the
 * conversation {@code chatOp}s.
 */
@ApplicationScoped
public class MediaOps {


    /** Room in a chunk's frame around its {@code data}: the envelope, op, seq, upload id, offset and the chunk's SHA-256. */
    static final int CHUNK_ENVELOPE = 2 * 1024;

    @Inject
    MediaUploads uploads;

    @Inject
    MediaLibrary library;

    @Inject
    MediaSettings settings;

    /**
     * The most bytes one chunk carries, either way, when a frame has at most {@code frameLimit}
     * characters: their base64 ({@code 4/3} as many characters) and {@link #CHUNK_ENVELOPE} fit it.
     */
    public static int chunkBytes(int frameLimit) {
        return (frameLimit - CHUNK_ENVELOPE) / 4 * 3;
    }

    /** Serves one {@code mediaOp} of user {@code me}, whose frames have at most {@code frameLimit} characters; the answer. */
    public String handle(long me, JsonObject frame, int frameLimit) {
        String op = frame.getString("op", "");
        JsonObjectBuilder ret = Frames.reply(frame);
        try {
            switch (op) {
                case "upload" -> upload(me, frame, ret, frameLimit);
                case "chunk" -> chunk(me, frame, ret, frameLimit);
                case "download" -> download(me, frame, ret, frameLimit);
                default -> throw ProblemException.badRequest("unknown-op", "Unknown mediaOp '" + op + "'.");
            }
            return Frames.outcome(ret, null);
        } catch (RuntimeException | IOException e) { // every op is answered: its problem, or server-busy / internal-error
            return Frames.outcome(ret, problem(e));
        }
    }

    /** {@code upload} {size, sha256, name?}: starts an upload of at most the in-band limit; {@code upload} (its id), {@code offset} 0. */
    private void upload(long me, JsonObject frame, JsonObjectBuilder ret, int frameLimit) {
        Long size = Frames.wholeLong(frame.get("size"));
        if (size == null) {
            throw ProblemException.badRequest("invalid-size", "size is the file's bytes, a whole number of at least 1.");
        }
        byte[] sha256 = sha256(frame.get("sha256"));
        if (sha256 == null) {
            throw ProblemException.badRequest("invalid-sha256", "An upload in band declares the file's sha256 (64 hex digits).");
        }
        JsonValue name = frame.get("name");
        if (name != null && name.getValueType() != JsonValue.ValueType.NULL && !(name instanceof JsonString)) {
            throw wrongType("name is a string.");
        }
        UploadStatus started = uploads.start(me, size, sha256, name instanceof JsonString s ? s.getString() : null,
                settings.inbandMaxBytes());
        ret.add("upload", started.id()).add("offset", started.offset()).add("size", started.size())
                .add("chunkBytes", chunkBytes(frameLimit));
    }

    /**
     * {@code chunk} {upload, offset, data, sha256?}: commits the chunk's bytes at the offset the upload
     * holds; {@code offset} (the new one), and {@code file} once the last byte made the upload a file.
     * A chunk for an upload that holds every byte already (its completion failed after the last
     * chunk was committed: the database went away, the node stopped) completes it.
     */
    private void chunk(long me, JsonObject frame, JsonObjectBuilder ret, int frameLimit) throws IOException {
        long upload = Ids.parse(frame.getString("upload", ""));
        ret.add("upload", Long.toString(upload));
        JsonValue at = frame.get("offset");
        if (at == null || at.getValueType() == JsonValue.ValueType.NULL) {
            throw ProblemException.badRequest("upload-offset-required", "Say where the chunk starts: offset.");
        }
        Long offset = Frames.wholeLong(at);
        if (offset == null || offset < 0) {
            throw ProblemException.badRequest("invalid-upload-offset", "offset is a byte count (a whole number ≥ 0).");
        }
        byte[] data = data(frame);
        int most = chunkBytes(frameLimit);
        if (data.length > most) {
            throw ProblemException.badRequest("chunk-too-large", "A chunk carries at most " + most + " bytes.");
        }
        byte[] declared = sha256(frame.get("sha256"));
        if (declared != null && !MessageDigest.isEqual(declared, Sha256.digest().digest(data))) {
            throw new ProblemException(422, "chunk-hash-mismatch", "Unprocessable content",
                    "The chunk's bytes do not have the sha256 declared for them; nothing was stored.");
        }
        UploadStatus held = uploads.status(me, upload);
        if (held.offset() == held.size()) { // every byte is in, no file yet: the last chunk's completion failed; again
            ret.add("offset", held.size()).add("file", Frames.toJson(uploads.complete(me, upload)));
            return;
        }
        if (offset != held.offset()) {
            ret.add("offset", held.offset());
            throw MediaProblems.offsetMismatch(held.offset());
        }
        if (offset + data.length > held.size()) {
            throw MediaProblems.uploadTooLong(held.size());
        }
        MediaUploads.Appended done;
        try {
            done = uploads.append(me, upload, offset, new ByteArrayInputStream(data));
        } catch (ProblemException e) {
            if ("upload-offset-mismatch".equals(e.type())) { // another chunk of the same upload got there first
                ret.add("offset", uploads.status(me, upload).offset());
            }
            throw e;
        }
        if (done.file() != null) {
            // offset: the bytes received; the file's size is what is served (an image re-encoded may differ)
            ret.add("offset", held.size()).add("file", Frames.toJson(done.file()));
        } else {
            ret.add("offset", done.upload().offset());
        }
    }

    /**
     * {@code download} {media, offset?, length?, thumbnail?}: at most one chunk of the file's bytes (or
     * its thumbnail's) from {@code offset}; {@code data}, {@code offset}, {@code length}, {@code size},
     * {@code mime}, and the file's {@code sha256}.
     */
    private void download(long me, JsonObject frame, JsonObjectBuilder ret, int frameLimit) throws IOException {
        long media = Ids.parse(frame.getString("media", ""));
        ret.add("media", Long.toString(media));
        JsonValue at = frame.get("offset");
        Long offset = at == null || at.getValueType() == JsonValue.ValueType.NULL ? Long.valueOf(0) : Frames.wholeLong(at);
        if (offset == null || offset < 0) {
            throw ProblemException.badRequest("invalid-offset", "offset is a byte count (a whole number ≥ 0).");
        }
        JsonValue asked = frame.get("length");
        Long length = null;
        if (asked != null && asked.getValueType() != JsonValue.ValueType.NULL) {
            length = Frames.wholeLong(asked);
            if (length == null || length < 1) {
                throw ProblemException.badRequest("invalid-length", "length is a byte count (a whole number ≥ 1).");
            }
        }
        long want = Math.min(length == null ? Long.MAX_VALUE : length, chunkBytes(frameLimit));
        long last = offset > Long.MAX_VALUE - want ? Long.MAX_VALUE : offset + want - 1;
        JsonValue thumb = frame.get("thumbnail");
        JsonValue.ValueType kind = thumb == null ? JsonValue.ValueType.NULL : thumb.getValueType();
        if (kind != JsonValue.ValueType.NULL && kind != JsonValue.ValueType.TRUE && kind != JsonValue.ValueType.FALSE) {
            throw wrongType("thumbnail is true or false.");
        }
        boolean thumbnail = kind == JsonValue.ValueType.TRUE;
        MediaLibrary.Content c = library.content(me, false, media, thumbnail, new MediaLibrary.ByteRangeAsk("bytes=" + offset + "-" + last));
        try (InputStream in = c.bytes()) {
            long max = settings.inbandMaxBytes();
            if (c.size() > max) {
                throw new ProblemException(413, "media-too-large", "Content too large", "The file has " + c.size()
                        + " bytes; at most " + max + " go in band: download it over REST (GET "
                        + (thumbnail ? "/api/v1/media/" + media + "/thumbnail" : c.file().url()) + ").");
            }
            if (!c.range().partial() || c.range().first() != offset) { // an offset of 19 digits: past any file's end
                throw new ProblemException(416, "range-not-satisfiable", "Range not satisfiable", "The file has " + c.size()
                        + " bytes; the offset asked is past its end.");
            }
            byte[] data = in.readNBytes((int) c.range().length());
            ret.add("offset", offset).add("length", data.length).add("size", c.size()).add("mime", c.type())
                    .add("data", Base64.getEncoder().encodeToString(data));
            if (!thumbnail) {
                ret.add("sha256", c.file().sha256());
            }
        }
    }

    private static ProblemException wrongType(String what) {
        return ProblemException.badRequest("invalid-frame", "A field has the wrong JSON type: " + what);
    }

    /** The chunk's bytes: {@code data}, base64 of at least one byte (400 {@code invalid-data}). */
    private static byte[] data(JsonObject frame) {
        if (frame.get("data") instanceof JsonString s) {
            try {
                byte[] data = Base64.getDecoder().decode(s.getString());
                if (data.length > 0) {
                    return data;
                }
            } catch (IllegalArgumentException e) {
                // below
            }
        }
        throw ProblemException.badRequest("invalid-data", "data is the chunk's bytes in base64 (RFC 4648, no line breaks), at least one.");
    }

    /** A hex SHA-256 field: null when absent or null, else {@link Sha256#parse}. */
    private static byte[] sha256(JsonValue v) {
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        if (!(v instanceof JsonString s)) {
            throw ProblemException.badRequest("invalid-sha256", "sha256 is 64 hex digits.");
        }
        return Sha256.parse(s.getString());
    }

    /**
     * Why an op failed, as the answer's code: its problem, {@code server-busy} if the database is
     * out of reach, else {@code internal-error} (logged).
     */
    private static ProblemException problem(Exception failure) {
        return Frames.failure(failure, "mediaOp", "try again");
    }
}
