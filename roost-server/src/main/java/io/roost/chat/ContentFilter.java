package io.roost.chat;

/**
 * The content check a user's text passes before anything is written (the anti-spam step): the
 * text of every text and custom message, a file's name, a location's title; a system message is a
 * back end's own words. The default is {@link WordListFilter}; a deployment replaces it with an
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
