package io.roost.platform.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class OutboxBackoffTest {

    @Test
    void backoffDoublesAndIsCapped() {
        assertEquals(2, OutboxStore.backoffSeconds(1));
        assertEquals(4, OutboxStore.backoffSeconds(2));
        assertEquals(256, OutboxStore.backoffSeconds(8));
        assertEquals(300, OutboxStore.backoffSeconds(9));
        assertEquals(300, OutboxStore.backoffSeconds(1_000_000));
        for (int attempts = 1; attempts < 40; attempts++) {
            assertTrue(OutboxStore.backoffSeconds(attempts) >= OutboxStore.backoffSeconds(attempts - 1));
        }
    }
}
