package io.roost.platform.retry;

/** Exponential backoff for retried work: 2, 4, 8 ... seconds after the n-th failure, capped at 5 min. */
public final class Backoff {

    public static final long MAX_SECONDS = 300;

    private Backoff() {
    }

    public static long seconds(int failedAttempts) {
        return Math.min(MAX_SECONDS, 1L << Math.max(0, Math.min(failedAttempts, 9)));
    }
}
