package io.roost.platform.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void backoffDoublesAndIsCapped() {
        assertEquals(2, Backoff.seconds(1));
        assertEquals(4, Backoff.seconds(2));
        assertEquals(256, Backoff.seconds(8));
        assertEquals(300, Backoff.seconds(9));
        assertEquals(300, Backoff.seconds(1_000_000));
        assertEquals(1, Backoff.seconds(-3));
        for (int attempts = 1; attempts < 40; attempts++) {
            assertTrue(Backoff.seconds(attempts) >= Backoff.seconds(attempts - 1));
        }
    }
}
