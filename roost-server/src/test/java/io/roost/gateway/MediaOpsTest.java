package io.roost.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** How many bytes an in-band chunk carries: its base64 and the envelope fit the frame limit. */
class MediaOpsTest {

    @Test
    void aChunkFitsTheFrameLimitWithItsEnvelope() {
        assertEquals(12_288, MediaOps.chunkBytes(18_432), "the default frame limit: 16,384 base64 characters");
        assertEquals(10_752, MediaOps.chunkBytes(16_384), "the smallest frame limit");
        assertEquals(47_616, MediaOps.chunkBytes(65_536), "the largest");
        for (int limit = 16_384; limit <= 65_536; limit += 7) {
            int bytes = MediaOps.chunkBytes(limit);
            int base64 = (bytes + 2) / 3 * 4;
            assertTrue(base64 + MediaOps.CHUNK_ENVELOPE <= limit, "limit " + limit);
            assertTrue(base64 + 4 + MediaOps.CHUNK_ENVELOPE > limit, "no room for three bytes more at limit " + limit);
        }
    }
}
