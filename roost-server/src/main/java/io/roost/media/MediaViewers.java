package io.roost.media;

/**
 * Who may see a file besides its uploader: whoever may see a message that names it. Chat implements
 * this (it knows the messages); media asks it at each download, so a recall or a member's leaving
 * takes effect at once.
 */
public interface MediaViewers {

    /** Whether {@code uid} may see a message that names {@code mediaId}. */
    boolean maySee(long uid, long mediaId);

    /** Whether message {@code msgId} (not recalled or deleted) names {@code mediaId}: a signed link's condition. */
    boolean namedBy(long mediaId, long msgId);

    /** Those of {@code mediaIds} that some message (not recalled, deleted or purged) names: the purge leaves them. */
    java.util.Set<Long> named(java.util.Collection<Long> mediaIds);
}
