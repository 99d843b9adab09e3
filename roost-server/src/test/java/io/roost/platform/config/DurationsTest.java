package io.roost.platform.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {

    @Test
    void unitsAndPlainSeconds() {
        assertEquals(Duration.ofSeconds(60), Durations.parse("60s"));
        assertEquals(Duration.ofMillis(500), Durations.parse(" 500ms "));
        assertEquals(Duration.ofMinutes(2), Durations.parse("2M"));
        assertEquals(Duration.ofSeconds(7), Durations.parse("7"));
        assertEquals(Duration.ofHours(3), Durations.parse("3h"));
        assertEquals(Duration.ofDays(30), Durations.parse("30d"));
        assertThrows(IllegalArgumentException.class, () -> Durations.parse("soon"));
    }
}
