package io.roost.platform.config;

import java.time.Duration;

/** Durations in configuration: "500ms", "60s", "2m", "1h", "30d", or plain seconds. */
public final class Durations {

    private Durations() {
    }

    public static Duration parse(String value) {
        String v = value.trim().toLowerCase();
        try {
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            }
            if (v.endsWith("s")) {
                return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
            }
            if (v.endsWith("m")) {
                return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
            }
            if (v.endsWith("h")) {
                return Duration.ofHours(Long.parseLong(v.substring(0, v.length() - 1)));
            }
            if (v.endsWith("d")) {
                return Duration.ofDays(Long.parseLong(v.substring(0, v.length() - 1)));
            }
            return Duration.ofSeconds(Long.parseLong(v));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a duration: '" + value + "' (use e.g. 500ms, 60s, 2m, 1h, 30d)", e);
        }
    }
}
