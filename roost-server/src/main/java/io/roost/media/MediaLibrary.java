package io.roost.media;

import io.roost.media.store.MediaRecords;
import io.roost.media.store.MediaRecords.MediaRow;
import io.roost.media.store.MediaStore;
import io.roost.platform.problem.ProblemException;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.inject.Instance;
import jakarta.transaction.Transactional;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Stored files: who may see one (its uploader, an operator, and whoever {@link MediaViewers} says may
 * see a message that names it; everyone else is told it does not exist), their bytes, signed links,
 * and what a message may name.
 */
@ApplicationScoped
public class MediaLibrary {

    @EJB
    MediaRecords records;

    @Inject
    MediaStores stores;

    @Inject
    MediaSettings settings;

    @Inject
    Instance<MediaViewers> viewers;

    @Inject
    Event<MediaRemoved> removed;

    /**
     * A stored file's bytes (or its thumbnail's: {@code type} image/jpeg), the range asked of them; or,
     * for a file in the bucket with {@code ROOST_MEDIA_S3_REDIRECT}, no bytes but {@code redirect}: a
     * signed URL the bucket serves them from.
     */
    public record Content(MediaFile file, String type, String disposition, String etag, long size, ByteRange range, InputStream bytes,
                          URI redirect) {
    }

    /** How long a redirect's signed URL works: long enough to follow it, not to pass it on. */
    static final Duration REDIRECT_TTL = Duration.ofSeconds(60);
    /** The bytes of an id never change; private: only who may see a message naming it may keep them. */
    public static final String CACHE_CONTROL = "private, max-age=31536000, immutable";
    /** Types a browser may show in its page; every other is an attachment. */
    private static final java.util.Set<String> INLINE_KINDS = java.util.Set.of("image", "voice", "video");

    /** The Content-Disposition of a file's bytes: inline for images, voice and video, else an attachment (a browser never runs it). */
    static String disposition(MediaFile f, boolean thumbnail) {
        String how = thumbnail || INLINE_KINDS.contains(f.kind()) ? "inline" : "attachment";
        String name = f.name() == null ? f.id() : f.name();
        return how + "; filename*=UTF-8''" + java.net.URLEncoder.encode(name, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** A signed download link and when it stops working. */
    @org.eclipse.microprofile.openapi.annotations.media.Schema(name = "MediaLink")
    public record Link(String url, Instant expiresAt) {
    }

    /** The file for {@code uid} (an operator: {@code operator}); 404 {@code unknown-media} unless it may see it. */
    public MediaFile file(long uid, boolean operator, long mediaId) {
        return file(visible(uid, operator, mediaId));
    }

    /**
     * The bytes of the file ({@code thumbnail}: its thumbnail's) from {@code offset}, {@code length} of
     * them (-1: to the end), for whoever may see it; 410 {@code media-removed} once it was removed.
     */
    public Content content(long uid, boolean operator, long mediaId, boolean thumbnail, ByteRangeAsk range) throws IOException {
        return content(visible(uid, operator, mediaId), thumbnail, range, false);
    }

    /** As {@link #content}, for an HTTP download: a file in the bucket may be answered by a redirect to it ({@code ROOST_MEDIA_S3_REDIRECT}). */
    public Content download(long uid, boolean operator, long mediaId, boolean thumbnail, ByteRangeAsk range) throws IOException {
        return content(visible(uid, operator, mediaId), thumbnail, range, true);
    }

    /** Where the caller asks its bytes from: a {@code Range} header's value, or null for all of them. */
    public record ByteRangeAsk(String header) {
    }

    /** As {@link #content}, for a signed link: 403 {@code invalid-link} when forged or expired; 404 when its message no longer names the file. */
    public Content linked(long mediaId, long msgId, long expires, String signature, boolean thumbnail, ByteRangeAsk range)
            throws IOException {
        SignedLinks links = links();
        if (!links.valid(mediaId, msgId, expires, signature, Instant.now().getEpochSecond())) {
            throw new ProblemException(403, "invalid-link", "Forbidden", "The link is expired or not signed by this server.");
        }
        MediaRow m = records.media(mediaId).orElseThrow(MediaProblems::unknownMedia);
        if (!viewers().map(v -> v.namedBy(mediaId, msgId)).orElse(false)) {
            throw MediaProblems.unknownMedia();
        }
        return content(m, thumbnail, range, true);
    }

    /** A signed link to the file through message {@code msgId}, for whoever may see the file; valid {@code ROOST_MEDIA_URL_TTL}. */
    public Link link(long uid, boolean operator, long mediaId, long msgId) {
        visible(uid, operator, mediaId);
        SignedLinks links = links();
        if (!viewers().map(v -> v.namedBy(mediaId, msgId)).orElse(false)) {
            throw ProblemException.badRequest("not-in-message", "Message " + msgId + " does not name file " + mediaId + ".");
        }
        long expires = Instant.now().plus(settings.urlTtl()).getEpochSecond();
        return new Link("/api/v1/media-links/" + mediaId + "?msg=" + msgId + "&exp=" + expires + "&sig="
                + links.sign(mediaId, msgId, expires), Instant.ofEpochSecond(expires));
    }

    /**
     * The file a message of {@code sender} names: the sender's own upload or one it may see (a
     * forward), not removed; 404 {@code unknown-media} otherwise. The file counts as used now (the
     * purge of unused files leaves it alone while the message is written).
     */
    public MediaFile forMessage(long sender, long mediaId) {
        MediaRow m = records.media(mediaId).filter(r -> r.removedAt() == null).orElseThrow(MediaProblems::unknownMedia);
        if (m.ownerUid() != sender && !viewers().map(v -> v.maySee(sender, mediaId)).orElse(false)) {
            throw MediaProblems.unknownMedia();
        }
        records.markUsed(mediaId);
        return file(m);
    }

    /**
     * Removes a stored file: its bytes and thumbnail deleted, its row kept as removed (downloads then
     * answer 410 {@code media-removed}), its bytes given back to the owner's quota, and
     * {@link MediaRemoved} fired so that its messages show it as removed; one transaction. The file
     * as it was; 404 {@code unknown-media} when there is none or it is removed already.
     */
    @Transactional
    public MediaFile remove(long mediaId, String by) {
        MediaRow m = records.markRemoved(mediaId, by).orElseThrow(MediaProblems::unknownMedia);
        MediaStore store = stores.byName(m.store());
        try {
            store.delete(m.blobId());
            if (m.thumbBlobId() != null) {
                store.delete(m.thumbBlobId());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // rolled back: the file stays, the next attempt deletes it
        }
        records.adjust(m.ownerUid(), -(m.size() + (m.thumbSize() == null ? 0 : m.thumbSize())));
        removed.fire(new MediaRemoved(mediaId, by));
        return file(m);
    }

    /** Those of {@code ids} that were removed (their messages show them as removed). */
    public List<Long> removed(Collection<Long> ids) {
        return ids.isEmpty() ? List.of() : records.removed(ids);
    }

    /** Whether messages may name files by external URLs. */
    public boolean externalUrls() {
        return settings.externalUrls();
    }

    private MediaRow visible(long uid, boolean operator, long mediaId) {
        MediaRow m = records.media(mediaId).orElseThrow(MediaProblems::unknownMedia);
        if (operator || m.ownerUid() == uid || viewers().map(v -> v.maySee(uid, mediaId)).orElse(false)) {
            return m;
        }
        throw MediaProblems.unknownMedia();
    }

    private Content content(MediaRow m, boolean thumbnail, ByteRangeAsk range, boolean mayRedirect) throws IOException {
        if (m.removedAt() != null) {
            throw new ProblemException(410, "media-removed", "Gone", "The file was removed.");
        }
        long blob = m.blobId();
        long size = m.size();
        String type = m.contentType();
        String etag = "\"" + Sha256.hex(m.sha256()) + "\"";
        if (thumbnail) {
            if (m.thumbBlobId() == null) {
                throw ProblemException.notFound("The file has no thumbnail.");
            }
            blob = m.thumbBlobId();
            size = m.thumbSize();
            type = "image/jpeg";
            etag = "\"t" + m.thumbBlobId() + "\"";
        }
        ByteRange r = ByteRange.of(range == null ? null : range.header(), size);
        MediaStore store = stores.byName(m.store());
        MediaFile f = file(m);
        String disposition = disposition(f, thumbnail);
        if (mayRedirect && store instanceof io.roost.media.store.S3MediaStore bucket && settings.s3Redirect()) {
            return new Content(f, type, disposition, etag, size, r, null, bucket.signedUrl(blob, REDIRECT_TTL, type, disposition, CACHE_CONTROL));
        }
        return new Content(f, type, disposition, etag, size, r, store.open(blob, r.first(), r.length()), null);
    }

    private Optional<MediaViewers> viewers() {
        return viewers.isResolvable() ? Optional.of(viewers.get()) : Optional.empty();
    }

    /** The link signer; 503 {@code links-disabled} without {@code ROOST_MEDIA_URL_SECRET}. */
    private SignedLinks links() {
        return settings.urlSecret().map(SignedLinks::new).orElseThrow(() -> ProblemException.unavailable("links-disabled",
                "Signed links are off: ROOST_MEDIA_URL_SECRET is not set."));
    }

    static MediaFile file(MediaRow m) {
        return new MediaFile(Long.toString(m.id()), Long.toString(m.ownerUid()), m.kind(), m.contentType(), m.size(),
                Sha256.hex(m.sha256()), m.name(), m.width(), m.height(), m.durationMs(), m.thumbBlobId() != null, m.createdAt(),
                m.removedAt() != null);
    }
}
