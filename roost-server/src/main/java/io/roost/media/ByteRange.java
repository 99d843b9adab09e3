package io.roost.media;

import io.roost.platform.problem.ProblemException;

/**
 * One range of a file's bytes, {@code first} to {@code last} inclusive, from an HTTP {@code Range}
 * header (HTTP range requests: {@code bytes=a-b}, {@code bytes=a-}, {@code bytes=-n}). One range per request:
 * a multi-range ask is answered whole (the header may be ignored), as most servers do.
 */
public record ByteRange(long first, long last, boolean partial) {

    /** Bytes in the range. */
    public long length() {
        return last - first + 1;
    }

    /** The {@code Content-Range} value of a 206 answer. */
    public String contentRange(long size) {
        return "bytes " + first + "-" + last + "/" + size;
    }

    /**
     * The range {@code header} asks of a file of {@code size} bytes: the whole file when there is no
     * header, one it does not understand, or several ranges; 416 {@code range-not-satisfiable} when
     * the range starts past the end (or the file is empty).
     */
    public static ByteRange of(String header, long size) {
        ByteRange whole = new ByteRange(0, size - 1, false);
        if (header == null || !header.startsWith("bytes=") || header.indexOf(',') >= 0) {
            return whole;
        }
        String spec = header.substring("bytes=".length()).trim();
        int dash = spec.indexOf('-');
        if (dash < 0) {
            return whole;
        }
        Long first = number(spec.substring(0, dash).trim());
        Long last = number(spec.substring(dash + 1).trim());
        if (first == null && last == null) {
            return whole;
        }
        if (first == null) { // the last n bytes
            if (last == -1L || last == 0 || size == 0) {
                throw unsatisfiable(size);
            }
            return new ByteRange(Math.max(0, size - last), size - 1, true);
        }
        if (first == -1L || (last != null && (last == -1L || last < first))) {
            return whole; // not a valid range: the header is ignored
        }
        if (first >= size) {
            throw unsatisfiable(size);
        }
        return new ByteRange(first, last == null ? size - 1 : Math.min(last, size - 1), true);
    }

    /** The digits of a position; -1 for something that is not one (too long, a sign, a letter); null when empty. */
    private static Long number(String s) {
        if (s.isEmpty()) {
            return null;
        }
        if (s.length() > 18) {
            return -1L;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return -1L;
            }
        }
        return Long.parseLong(s);
    }

    private static ProblemException unsatisfiable(long size) {
        return new RangeNotSatisfiable(size);
    }

    /** 416, whose answer carries {@code Content-Range: bytes * /size}. */
    public static final class RangeNotSatisfiable extends ProblemException {
        private final long size;

        RangeNotSatisfiable(long size) {
            super(416, "range-not-satisfiable", "Range not satisfiable", "The file has " + size + " bytes; the range asked starts past its end.");
            this.size = size;
        }

        public long size() {
            return size;
        }
    }
}
