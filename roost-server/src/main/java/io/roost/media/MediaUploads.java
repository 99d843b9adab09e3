package io.roost.media;

import io.roost.media.store.ChunkStore;
import io.roost.media.store.MediaRecords;
import io.roost.media.store.MediaRecords.MediaRow;
import io.roost.media.store.MediaRecords.UploadRow;
import io.roost.media.store.MediaStore;
import io.roost.platform.ids.IdGenerator;
import io.roost.platform.problem.ProblemException;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;

/**
 * Uploads, from the first byte to a stored file. An upload reserves its size against the user's
 * quota and counts against the upload rate when it starts; its bytes arrive in one body or in
 * several (a client that lost its connection continues from the committed offset), each chunk
 * committed with the upload's new length; the last byte makes it a file: its SHA-256 checked
 * against what the client declared, its type found from its bytes and checked against the
 * allow-list, the same user's same content answered with the file already stored, an image's size,
 * thumbnail and clean copy made, a duration read. Nothing is answered before it is committed.
 */
@ApplicationScoped
public class MediaUploads {

    /** Bytes of a file's start that type detection looks at. */
    static final int HEAD_BYTES = 64 * 1024;
    /** Images decoded at once on a node: each may take width × height × 4 bytes of heap. */
    private static final Semaphore DECODING = new Semaphore(2);

    @EJB
    MediaRecords records;

    @EJB
    ChunkStore chunks;

    @Inject
    MediaSettings settings;

    @Inject
    MediaStores stores;

    @Inject
    IdGenerator ids;

    /** This bean through its proxy: the steps that are transactions of their own. */
    @Inject
    MediaUploads self;

    /** What an append answers: the upload's new state, or the file it became. */
    public record Appended(UploadStatus upload, MediaFile file) {
    }

    /**
     * Starts an upload of {@code size} bytes. 400 {@code invalid-size}; 413 {@code media-too-large}
     * over {@code ROOST_MEDIA_MAX_BYTES} (or {@code limit}, for in-band uploads); 413
     * {@code media-quota-exceeded}; 429 {@code media-rate-limited}.
     */
    @Transactional
    public UploadStatus start(long owner, long size, byte[] sha256, String name, long limit) {
        if (size <= 0) {
            throw ProblemException.badRequest("invalid-size", "A file has at least one byte.");
        }
        if (size > limit) {
            throw MediaProblems.tooLarge(size, limit);
        }
        if (name != null && (name.isBlank() || name.length() > 255 || name.chars().anyMatch(c -> c < 0x20 || c == 0x7f))) {
            throw ProblemException.badRequest("invalid-name", "A file name is 1 to 255 characters, none of them a control character.");
        }
        if (!records.reserve(owner, size, settings.quotaBytes(), settings.uploadsPerMinute())) {
            MediaRecords.Usage usage = records.usage(owner).orElse(new MediaRecords.Usage(0, 0, OffsetDateTime.now()));
            if (usage.bytes() + size > settings.quotaBytes()) {
                throw MediaProblems.quotaExceeded(usage.bytes(), size, settings.quotaBytes());
            }
            long wait = Math.max(1, 60 - Duration.between(usage.windowStart(), OffsetDateTime.now()).toSeconds());
            throw ProblemException.tooManyRequests("media-rate-limited", "At most " + settings.uploadsPerMinute()
                    + " uploads a minute; try again in " + wait + " s.", wait);
        }
        long id = ids.nextId();
        records.insertUpload(id, owner, size, sha256, name);
        return new UploadStatus(Long.toString(id), size, 0, name, OffsetDateTime.now());
    }

    /** The caller's upload in progress; 404 {@code unknown-upload} for anyone else's. */
    public UploadStatus status(long owner, long uploadId) {
        return status(owned(owner, uploadId));
    }

    /**
     * Appends what {@code body} holds to the upload from {@code offset} (409 {@code upload-offset-mismatch}
     * unless that is what it holds), committing a chunk at a time; the last byte makes it a file. A body
     * that ends early leaves the upload where it ended (the answer says where); one that goes past the
     * declared size is 400 {@code upload-too-long}, its last chunk not kept.
     */
    public Appended append(long owner, long uploadId, long offset, InputStream body) throws IOException {
        UploadRow u = owned(owner, uploadId);
        if (offset != u.received()) {
            throw MediaProblems.offsetMismatch(u.received());
        }
        byte[] buffer = new byte[MediaStore.CHUNK_BYTES];
        long at = offset;
        while (at < u.size()) {
            int want = (int) Math.min(buffer.length, u.size() - at);
            int got = body.readNBytes(buffer, 0, want);
            if (got == 0) {
                break;
            }
            if (at + got == u.size() && body.read() != -1) {
                throw MediaProblems.uploadTooLong(u.size());
            }
            self.appendChunk(uploadId, at, Arrays.copyOf(buffer, got));
            at += got;
            if (got < want) {
                break; // the body ended: the upload continues from here
            }
        }
        if (at < u.size()) {
            return new Appended(new UploadStatus(Long.toString(uploadId), u.size(), at, u.name(), u.createdAt()), null);
        }
        return new Appended(null, complete(owner, uploadId));
    }

    /** One chunk and the upload's new length, in one transaction (409 if another append moved it meanwhile). */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void appendChunk(long uploadId, long at, byte[] data) {
        if (!records.advanceUpload(uploadId, at, at + data.length)) {
            throw MediaProblems.offsetMismatch(records.upload(uploadId).map(UploadRow::received).orElse(at));
        }
        chunks.insert(uploadId, at, data);
    }

    /** Gives the upload up: its bytes deleted, its reservation given back; 404 {@code unknown-upload} when there is none. */
    @Transactional
    public void cancel(long owner, long uploadId) {
        if (!discard(owner, uploadId)) {
            throw MediaProblems.unknownUpload();
        }
    }

    /** Gives the upload up if it is still there (a failed completion may have given it up already); whether it was. */
    @Transactional
    public boolean discard(long owner, long uploadId) {
        UploadRow u = records.lockUpload(uploadId).filter(r -> r.ownerUid() == owner).orElse(null);
        if (u != null) {
            drop(u);
        }
        return u != null;
    }

    private void drop(UploadRow u) {
        records.deleteUpload(u.id());
        chunks.delete(u.id());
        records.adjust(u.ownerUid(), -u.size());
    }

    /** Makes a whole upload a file (again after a failure: an upload whose last byte is in but that is no file yet). */
    public MediaFile complete(long owner, long uploadId) throws IOException {
        UploadRow u = owned(owner, uploadId);
        if (u.received() != u.size()) {
            throw MediaProblems.uploadIncomplete(u.received(), u.size());
        }
        Supplier<InputStream> bytes = () -> new ChunkStore.ChunkInputStream(chunks::at, uploadId, 0, u.size());
        byte[] head;
        byte[] sha256;
        try (DigestInputStream in = new DigestInputStream(bytes.get(), Sha256.digest())) {
            head = in.readNBytes(HEAD_BYTES);
            in.transferTo(java.io.OutputStream.nullOutputStream());
            sha256 = in.getMessageDigest().digest();
        }
        if (u.sha256() != null && !MessageDigest.isEqual(u.sha256(), sha256)) {
            self.discard(owner, uploadId);
            throw MediaProblems.hashMismatch();
        }
        String type = MediaInspector.detect(head);
        if (!MediaInspector.allowed(type, settings.types())) {
            self.discard(owner, uploadId);
            throw MediaProblems.typeNotAllowed(type);
        }
        MediaRow existing = records.byContent(owner, sha256).orElse(null);
        if (existing != null) {
            self.discard(owner, uploadId);
            return MediaLibrary.file(existing);
        }
        String kind = MediaInspector.kind(type);
        MediaInspector.Image image = null;
        Long duration = null;
        if (kind.equals("image")) {
            image = inspectImage(type, bytes, owner, uploadId);
        } else if (kind.equals("voice") || kind.equals("video")) {
            duration = MediaInspector.durationMs(bytes);
        }
        return self.finish(u, sha256, type, kind, image, duration);
    }

    private MediaInspector.Image inspectImage(String type, Supplier<InputStream> bytes, long owner, long uploadId)
            throws IOException {
        DECODING.acquireUninterruptibly();
        try {
            return MediaInspector.image(type, bytes, settings.imageMaxPixels(), settings.thumbnailPixels(), settings.stripMetadata());
        } catch (ProblemException e) {
            self.discard(owner, uploadId);
            throw e;
        } finally {
            DECODING.release();
        }
    }

    /** The file's row, its clean copy and thumbnail, the quota moved from the reservation to what is stored, the upload gone: one transaction. */
    @Transactional
    public MediaFile finish(UploadRow u, byte[] uploadSha256, String type, String kind, MediaInspector.Image image, Long duration) {
        UploadRow locked = records.lockUpload(u.id()).orElse(null);
        if (locked == null) { // a racing completion of the same upload got there first
            return records.byContent(u.ownerUid(), uploadSha256).map(MediaLibrary::file).orElseThrow(MediaProblems::unknownUpload);
        }
        MediaRow existing = records.byContent(u.ownerUid(), uploadSha256).orElse(null);
        if (existing != null) { // the same content finished by another upload meanwhile
            drop(locked);
            return MediaLibrary.file(existing);
        }
        MediaStore store = stores.current();
        try {
            long blobId = u.id();
            long size = u.size();
            byte[] sha256 = uploadSha256;
            if (image != null && image.reencoded() != null) {
                blobId = ids.nextId();
                byte[] clean = image.reencoded();
                store.put(blobId, () -> new ByteArrayInputStream(clean), clean.length, type);
                size = image.reencoded().length;
                sha256 = Sha256.digest().digest(image.reencoded());
                chunks.delete(u.id());
            } else if (!store.name().equals("db")) {
                store.put(blobId, () -> new ChunkStore.ChunkInputStream(chunks::at, u.id(), 0, u.size()), u.size(), type);
                chunks.delete(u.id());
            }
            Long thumbBlob = null;
            Long thumbSize = null;
            if (image != null && image.thumbnail() != null) {
                thumbBlob = ids.nextId();
                thumbSize = (long) image.thumbnail().length;
                byte[] thumb = image.thumbnail();
                store.put(thumbBlob, () -> new ByteArrayInputStream(thumb), thumbSize, "image/jpeg");
            }
            MediaRow row = new MediaRow(u.id(), u.ownerUid(), uploadSha256, sha256, size, type, kind, u.name(),
                    image == null ? null : image.width(), image == null ? null : image.height(), duration, store.name(), blobId,
                    thumbBlob, thumbSize, OffsetDateTime.now(), null);
            MediaRow stored = records.insertMedia(row); // its createdAt the database's, as every later description shows it
            records.deleteUpload(u.id());
            records.adjust(u.ownerUid(), size + (thumbSize == null ? 0 : thumbSize) - u.size());
            return MediaLibrary.file(stored);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private UploadRow owned(long owner, long uploadId) {
        return records.upload(uploadId).filter(r -> r.ownerUid() == owner).orElseThrow(MediaProblems::unknownUpload);
    }

    private static UploadStatus status(UploadRow u) {
        return new UploadStatus(Long.toString(u.id()), u.size(), u.received(), u.name(), u.createdAt());
    }
}
