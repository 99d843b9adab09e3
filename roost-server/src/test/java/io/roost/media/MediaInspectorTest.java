package io.roost.media;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.util.List;
import org.junit.jupiter.api.Test;

class MediaInspectorTest {

    @Test
    void typesFromMagicNumbers() {
        assertEquals("image/png", MediaInspector.detect(new byte[] {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10, 0, 0, 0, 13}));
        assertEquals("application/pdf", MediaInspector.detect("%PDF-1.7\n".getBytes()));
        assertEquals("text/html", MediaInspector.detect("<!DOCTYPE html><html></html>".getBytes()));
    }

    @Test
    void kindsAndTheAllowList() {
        assertEquals("image", MediaInspector.kind("image/png"));
        assertEquals("voice", MediaInspector.kind("audio/mp4"));
        assertEquals("video", MediaInspector.kind("video/mp4"));
        assertEquals("file", MediaInspector.kind("application/pdf"));
        List<String> allowed = List.of("image/png", "audio/*");
        assertTrue(MediaInspector.allowed("image/png", allowed));
        assertTrue(MediaInspector.allowed("audio/ogg", allowed));
        assertFalse(MediaInspector.allowed("image/svg+xml", allowed));
        assertFalse(MediaInspector.allowed("audiox/ogg", allowed));
    }

    @Test
    void orientationsTurnAndMirrorAsExifSays() {
        BufferedImage img = new BufferedImage(4, 2, BufferedImage.TYPE_INT_RGB);
        img.setRGB(0, 0, 0xFF0000); // the top-left pixel
        int[][] where = {null, {0, 0}, {3, 0}, {3, 1}, {0, 1}, {0, 0}, {1, 0}, {1, 3}, {0, 3}};
        for (int o = 1; o <= 8; o++) {
            BufferedImage out = MediaInspector.oriented(img, o);
            assertEquals(o >= 5 ? 2 : 4, out.getWidth(), "orientation " + o);
            assertEquals(0xFF0000, out.getRGB(where[o][0], where[o][1]) & 0xFFFFFF, "orientation " + o + ": where the top-left pixel goes");
        }
    }

    @Test
    void anMp4SaysItsDuration() throws Exception {
        byte[] mp4 = mp4(1000, 5250); // 5.25 s at a time scale of 1,000
        assertEquals("video/mp4", MediaInspector.detect(mp4));
        assertEquals(5250L, MediaInspector.durationMs(() -> new java.io.ByteArrayInputStream(mp4)));
        assertEquals(null, MediaInspector.durationMs(() -> new java.io.ByteArrayInputStream("%PDF-1.4".getBytes())), "no container, no duration");
    }

    /** ftyp, then moov with an mvhd (version 0) of that time scale and duration. */
    static byte[] mp4(int timeScale, int duration) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(24 + 8 + 108);
        b.putInt(24).put("ftyp".getBytes()).put("mp42".getBytes()).putInt(0).put("mp42".getBytes()).put("isom".getBytes());
        b.putInt(8 + 108).put("moov".getBytes());
        b.putInt(108).put("mvhd".getBytes()).putInt(0).putInt(0).putInt(0).putInt(timeScale).putInt(duration).putInt(0x00010000)
                .putShort((short) 0x0100).put(new byte[10]);
        int[] matrix = {0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000};
        for (int m : matrix) {
            b.putInt(m);
        }
        b.put(new byte[24]).putInt(2);
        return b.array();
    }

    @Test
    void aThumbnailKeepsTheAspect() {
        BufferedImage t = MediaInspector.scaled(new BufferedImage(1000, 500, BufferedImage.TYPE_INT_RGB), 320);
        assertEquals(320, t.getWidth());
        assertEquals(160, t.getHeight());
        BufferedImage small = MediaInspector.scaled(new BufferedImage(100, 50, BufferedImage.TYPE_INT_RGB), 320);
        assertEquals(100, small.getWidth(), "never enlarged");
    }
}
