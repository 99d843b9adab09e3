package io.roost.media;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ByteRangeTest {

    @Test
    void noHeaderOrOneNotUnderstoodIsTheWholeFile() {
        for (String h : new String[] {null, "", "items=0-5", "bytes=0-5,10-20", "bytes=abc", "bytes=5-2", "bytes=-", "bytes=+1-3"}) {
            ByteRange r = ByteRange.of(h, 100);
            assertFalse(r.partial(), String.valueOf(h));
            assertEquals(0, r.first());
            assertEquals(99, r.last());
        }
    }

    @Test
    void theThreeFormsOfOneRange() {
        ByteRange closed = ByteRange.of("bytes=10-19", 100);
        assertTrue(closed.partial());
        assertEquals(10, closed.length());
        assertEquals("bytes 10-19/100", closed.contentRange(100));
        ByteRange open = ByteRange.of("bytes=90-", 100);
        assertEquals(90, open.first());
        assertEquals(99, open.last());
        ByteRange suffix = ByteRange.of("bytes=-5", 100);
        assertEquals(95, suffix.first());
        assertEquals(99, suffix.last());
        assertEquals(0, ByteRange.of("bytes=-500", 100).first(), "a suffix longer than the file is the file");
        assertEquals(99, ByteRange.of("bytes=50-5000", 100).last(), "an end past the file is its last byte");
    }

    @Test
    void aRangeThatStartsPastTheEndIs416() {
        ByteRange.RangeNotSatisfiable e = assertThrows(ByteRange.RangeNotSatisfiable.class, () -> ByteRange.of("bytes=100-", 100));
        assertEquals(416, e.status());
        assertEquals(100, e.size());
        assertThrows(ByteRange.RangeNotSatisfiable.class, () -> ByteRange.of("bytes=-0", 100));
    }
}
