package io.roost.client.rest;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * When a call is made again: only after a 503 (Roost's {@code service-unavailable}: its database
 * or broker is out of reach, nothing was done), after the {@code Retry-After} it names (no header:
 * one second), at most {@code maxRetries} times and never waiting longer than {@code maxWait} at
 * once. Nothing else is retried: a 4xx is the caller's to fix, a 500 may have done something.
 */
public record RetryPolicy(int maxRetries, Duration maxWait) {

    /** Three retries, each waiting at most 30 s. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(3, Duration.ofSeconds(30));
    /** No retries. */
    public static final RetryPolicy NONE = new RetryPolicy(0, Duration.ZERO);

    public RetryPolicy {
        if (maxRetries < 0 || maxWait.isNegative()) {
            throw new IllegalArgumentException("retries and wait are 0 or more");
        }
    }

    /** How long to wait before retry number {@code retry} (0 first) of an answer of {@code status}; empty: do not retry. */
    public Optional<Duration> waitBefore(int retry, int status, Optional<String> retryAfter) {
        if (status != 503 || retry >= maxRetries) {
            return Optional.empty();
        }
        Duration wait = retryAfter.map(RetryPolicy::parse).orElse(Duration.ofSeconds(1));
        return Optional.of(wait.compareTo(maxWait) > 0 ? maxWait : wait);
    }

    /** {@code Retry-After}: delay-seconds or an HTTP date; one second if it is neither. */
    static Duration parse(String value) {
        String v = value.trim();
        try {
            return Duration.ofSeconds(Math.max(0, Long.parseLong(v)));
        } catch (NumberFormatException e) {
            try {
                Duration d = Duration.between(ZonedDateTime.now(), ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME));
                return d.isNegative() ? Duration.ZERO : d;
            } catch (DateTimeParseException e2) {
                return Duration.ofSeconds(1);
            }
        }
    }
}
