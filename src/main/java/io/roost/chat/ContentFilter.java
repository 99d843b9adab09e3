package io.roost.chat;

/**
 * The content check every message's text passes before anything is written (the anti-spam
 * step). The default is {@link WordListFilter}; a deployment replaces it with an
 * {@code @Alternative @Priority} bean of its own.
 */
public interface ContentFilter {

    /**
     * The text to store: {@code text} itself or a masked copy; or a {@link ContentRejected} to
     * refuse the message (422 {@code content-rejected}, nothing written).
     */
    String check(long sender, long recipient, String text) throws ContentRejected;

    /** The filter refuses the message; the message says why, without echoing the words. */
    class ContentRejected extends Exception {
        public ContentRejected(String message) {
            super(message, null, false, false);
        }
    }
}
