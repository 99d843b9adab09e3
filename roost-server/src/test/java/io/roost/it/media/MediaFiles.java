package io.roost.it.media;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;

/** Files for the media tests (client-side and in-container alike): seeded bytes of a known type, a JPEG with EXIF, hashes. */
public final class MediaFiles {

    private MediaFiles() {
    }

    /** {@code n} random bytes after a PDF header (so that the type is one the server accepts), seeded. */
    public static byte[] pdf(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        byte[] head = "%PDF-1.4\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        System.arraycopy(head, 0, b, 0, head.length);
        return b;
    }

    public static String sha256(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A JPEG of {@code w} × {@code h} with an EXIF block (orientation {@code orientation}, a GPS latitude) after its SOI. */
    public static byte[] jpegWithExif(int w, int h, int orientation) throws IOException {
        java.awt.image.BufferedImage img = new java.awt.image.BufferedImage(w, h, java.awt.image.BufferedImage.TYPE_INT_RGB);
        java.awt.Graphics2D g = img.createGraphics();
        g.setColor(java.awt.Color.ORANGE);
        g.fillRect(0, 0, w / 2, h);
        g.dispose();
        ByteArrayOutputStream plain = new ByteArrayOutputStream();
        javax.imageio.ImageIO.write(img, "jpeg", plain);
        byte[] jpeg = plain.toByteArray();
        // TIFF, big-endian: IFD0 {Orientation, GPS IFD pointer}, then the GPS IFD {GPSLatitudeRef "N"}
        java.nio.ByteBuffer t = java.nio.ByteBuffer.allocate(8 + 2 + 2 * 12 + 4 + 2 + 12 + 4);
        t.put(new byte[] {'M', 'M', 0, 42}).putInt(8);
        t.putShort((short) 2);
        t.putShort((short) 0x0112).putShort((short) 3).putInt(1).putShort((short) orientation).putShort((short) 0);
        int gpsAt = 8 + 2 + 2 * 12 + 4;
        t.putShort((short) 0x8825).putShort((short) 4).putInt(1).putInt(gpsAt);
        t.putInt(0);
        t.putShort((short) 1);
        t.putShort((short) 0x0001).putShort((short) 2).putInt(2).put(new byte[] {'N', 0, 0, 0});
        t.putInt(0);
        byte[] tiff = t.array();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(jpeg, 0, 2); // SOI
        int length = 2 + 6 + tiff.length;
        out.write(new byte[] {(byte) 0xFF, (byte) 0xE1, (byte) (length >> 8), (byte) length});
        out.write("Exif\0\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        out.write(tiff);
        out.write(jpeg, 2, jpeg.length - 2);
        return out.toByteArray();
    }

    /** Whether {@code needle} occurs in {@code hay}. */
    public static boolean contains(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
