package io.roost.media;

/**
 * A stored file was removed (by an operator, or by the purge of files no message names), fired in
 * the removing transaction: whoever keeps messages that name it marks them so, in the same
 * transaction (chat observes it).
 */
public record MediaRemoved(long mediaId, String by) {
}
