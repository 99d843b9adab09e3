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

    /** A stored file's bytes (or its thumbnail's: {@code type} image/jpeg), the range asked of them. */
    public record Content(MediaFile file, String type, String etag, long size, ByteRange range, InputStream bytes) {
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
        return content(visible(uid, operator, mediaId), thumbnail, range);
    }

    /** Where the caller asks its bytes from: a {@code Range} header's value, or null for all of them. */
    public record ByteRangeAsk(String header) {
    }

    /** As {@link #content}, for a signed link: 403 {@code invalid-link} when forged or expired; 404 when its message no longer names the file. */
    public Content linked(long mediaId, long msgId, long expires, String signature, boolean thumbnail, ByteRangeAsk range)
            throws IOException {
        SignedLinks links = links().orElseThrow(() -> ProblemException.unavailable("links-disabled",
                "Signed links are off: ROOST_MEDIA_URL_SECRET is not set."));
        if (!links.valid(mediaId, msgId, expires, signature, Instant.now().getEpochSecond())) {
            throw new ProblemException(403, "invalid-link", "Forbidden", "The link is expired or not signed by this server.");
        }
        MediaRow m = records.media(mediaId).orElseThrow(MediaProblems::unknownMedia);
        if (!viewers().map(v -> v.namedBy(mediaId, msgId)).orElse(false)) {
            throw MediaProblems.unknownMedia();
        }
        return content(m, thumbnail, range);
    }

    /** A signed link to the file through message {@code msgId}, for whoever may see the file; valid {@code ROOST_MEDIA_URL_TTL}. */
    public Link link(long uid, boolean operator, long mediaId, long msgId) {
        visible(uid, operator, mediaId);
        SignedLinks links = links().orElseThrow(() -> ProblemException.unavailable("links-disabled",
                "Signed links are off: ROOST_MEDIA_URL_SECRET is not set."));
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

    private Content content(MediaRow m, boolean thumbnail, ByteRangeAsk range) throws IOException {
        if (m.removedAt() != null) {
            throw new ProblemException(410, "media-removed", "Gone", "The file was removed.");
        }
        long blob = m.blobId();
        long size = m.size();
        String type = m.contentType();
        String etag = "\"" + MediaUploads.hex(m.sha256()) + "\"";
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
        InputStream bytes = stores.byName(m.store()).open(blob, r.first(), r.length());
        return new Content(file(m), type, etag, size, r, bytes);
    }

    private Optional<MediaViewers> viewers() {
        return viewers.isResolvable() ? Optional.of(viewers.get()) : Optional.empty();
    }

    private Optional<SignedLinks> links() {
        return settings.urlSecret().map(SignedLinks::new);
    }

    static MediaFile file(MediaRow m) {
        return new MediaFile(Long.toString(m.id()), Long.toString(m.ownerUid()), m.kind(), m.contentType(), m.size(),
                MediaUploads.hex(m.sha256()), m.name(), m.width(), m.height(), m.durationMs(), m.thumbBlobId() != null, m.createdAt(),
                m.removedAt() != null);
    }
}
