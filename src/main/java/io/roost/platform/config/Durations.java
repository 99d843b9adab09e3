package io.roost.platform.config;

import java.time.Duration;

/** Durations in configuration: "60s", "500ms", "2m", or plain seconds. */
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
            return Duration.ofSeconds(Long.parseLong(v));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a duration: '" + value + "' (use e.g. 60s, 500ms, 2m)", e);
        }
    }
}
