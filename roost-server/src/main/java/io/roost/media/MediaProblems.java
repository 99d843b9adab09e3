package io.roost.media;

import io.roost.platform.problem.ProblemException;

/** The problems media answers with; each type is documented in docs/api.md and docs/protocol.md. */
public final class MediaProblems {

    private MediaProblems() {
    }

    public static ProblemException tooLarge(long size, long max) {
        return new ProblemException(413, "media-too-large", "Content too large", "The file has " + size + " bytes; at most " + max + " may be uploaded.");
    }

    public static ProblemException typeNotAllowed(String type) {
        return new ProblemException(415, "media-type-not-allowed", "Unsupported media type", "Files of type " + type + " are not accepted here.");
    }

    public static ProblemException quotaExceeded(long used, long size, long quota) {
        return new ProblemException(413, "media-quota-exceeded", "Quota exceeded", "You hold " + used + " bytes; " + size
                + " more would pass your quota of " + quota + ".");
    }

    public static ProblemException hashMismatch() {
        return new ProblemException(422, "media-hash-mismatch", "Unprocessable content", "The bytes received do not have the SHA-256 declared for them; nothing was stored.");
    }

    public static ProblemException unreadableImage() {
        return new ProblemException(422, "unreadable-image", "Unprocessable content", "The file's bytes say it is an image, but it cannot be read as one.");
    }

    public static ProblemException imageTooLarge(int width, int height, long maxPixels) {
        return new ProblemException(422, "image-too-large", "Unprocessable content", "The image has " + width + " × " + height
                + " pixels; at most " + maxPixels + " are accepted.");
    }

    public static ProblemException unknownMedia() {
        return new ProblemException(404, "unknown-media", "Not found", "No such file, or not one you may see.");
    }

    public static ProblemException unknownUpload() {
        return new ProblemException(404, "unknown-upload", "Not found", "No such upload in progress.");
    }

    public static ProblemException offsetMismatch(long offset) {
        return new ProblemException(409, "upload-offset-mismatch", "Conflict", "The upload holds " + offset
                + " bytes; continue from there (Upload-Offset: " + offset + ").");
    }

    public static ProblemException uploadTooLong(long size) {
        return ProblemException.badRequest("upload-too-long", "More bytes were sent than the " + size + " the upload declared.");
    }

    public static ProblemException uploadIncomplete(long received, long size) {
        return ProblemException.badRequest("upload-incomplete", "The body ended after " + received + " of the file's " + size
                + " bytes; continue from " + received + ".");
    }
}
