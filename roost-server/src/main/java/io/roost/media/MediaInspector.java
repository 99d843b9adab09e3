package io.roost.media;

import com.drew.imaging.ImageMetadataReader;
import com.drew.imaging.ImageProcessingException;
import com.drew.metadata.Directory;
import com.drew.metadata.Metadata;
import com.drew.metadata.exif.ExifIFD0Directory;
import com.drew.metadata.mov.QuickTimeDirectory;
import com.drew.metadata.mp4.Mp4Directory;
import com.drew.metadata.webp.WebpDirectory;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageReader;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.stream.ImageInputStream;
import javax.imageio.stream.ImageOutputStream;
import org.apache.tika.Tika;

/**
 * What a file is, from its bytes: the content type (Apache Tika's magic numbers), the kind a message
 * names it by, an image's width and height (ImageIO; metadata-extractor for WebP and HEIC, which
 * ImageIO does not decode), its EXIF orientation, a JPEG thumbnail, the image re-encoded without
 * its metadata, and the duration an MP4 or QuickTime container declares (metadata-extractor).
 * Nothing here trusts a name or a type the client gave.
 */
public final class MediaInspector {

    private static final Tika TIKA = new Tika();
    /** The formats that are re-encoded without metadata (ImageIO writes them; a GIF would lose its animation). */
    private static final List<String> REENCODED = List.of("image/jpeg", "image/png", "image/bmp");

    private MediaInspector() {
    }

    /** What an image is once looked at: its size as shown (orientation applied), and, if made, a thumbnail and a clean copy. */
    public record Image(int width, int height, byte[] thumbnail, byte[] reencoded) {
    }

    /** The content type of a file that starts with {@code head} (its first bytes; 64 KiB are plenty). */
    public static String detect(byte[] head) {
        String type = TIKA.detect(head);
        return type == null ? "application/octet-stream" : type.toLowerCase(Locale.ROOT);
    }

    /** The kind a message names a file of {@code contentType} by: image, voice, video or file. */
    public static String kind(String contentType) {
        if (contentType.startsWith("image/")) {
            return "image";
        }
        if (contentType.startsWith("audio/")) {
            return "voice";
        }
        if (contentType.startsWith("video/")) {
            return "video";
        }
        return "file";
    }

    /** Whether {@code contentType} is in {@code allowed} (entries {@code type/subtype} or {@code type/*}). */
    public static boolean allowed(String contentType, List<String> allowed) {
        for (String a : allowed) {
            if (a.equals(contentType) || (a.endsWith("/*") && contentType.startsWith(a.substring(0, a.length() - 1)))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Looks at an image: its size, orientation, a thumbnail of at most {@code thumbPixels} on its longer
     * side and, with {@code strip}, the image re-encoded without metadata (JPEG, PNG, BMP). An image
     * ImageIO cannot decode (WebP, HEIC) gets its size from its headers and neither. 422
     * {@code image-too-large} above {@code maxPixels}; 422 {@code unreadable-image} for an image
     * whose bytes are not one.
     */
    public static Image image(String contentType, Supplier<InputStream> bytes, long maxPixels, int thumbPixels, boolean strip)
            throws IOException {
        Metadata metadata = metadata(bytes); // read once: the orientation, and the size of what ImageIO cannot decode
        int orientation = orientation(metadata);
        try (InputStream in = bytes.get(); ImageInputStream iis = ImageIO.createImageInputStream(in)) {
            Iterator<ImageReader> readers = ImageIO.getImageReaders(iis);
            if (!readers.hasNext()) {
                int[] size = headerSize(metadata);
                if (size == null) {
                    throw MediaProblems.unreadableImage();
                }
                return new Image(size[0], size[1], null, null);
            }
            ImageReader reader = readers.next();
            try {
                reader.setInput(iis, true, true);
                long pixels = (long) reader.getWidth(0) * reader.getHeight(0);
                if (pixels > maxPixels) {
                    throw MediaProblems.imageTooLarge(reader.getWidth(0), reader.getHeight(0), maxPixels);
                }
                BufferedImage decoded = oriented(reader.read(0), orientation);
                byte[] thumbnail = jpeg(scaled(decoded, thumbPixels), 0.8f);
                byte[] clean = strip && REENCODED.contains(contentType) ? encode(decoded, contentType) : null;
                return new Image(decoded.getWidth(), decoded.getHeight(), thumbnail, clean);
            } catch (IOException | RuntimeException e) {
                if (e instanceof io.roost.platform.problem.ProblemException p) {
                    throw p;
                }
                throw MediaProblems.unreadableImage();
            } finally {
                reader.dispose();
            }
        }
    }

    /** Milliseconds of an MP4 or QuickTime file (voice and video) as its header declares; null when it does not. */
    public static Long durationMs(Supplier<InputStream> bytes) {
        Metadata metadata = metadata(bytes);
        if (metadata == null) {
            return null;
        }
        for (Class<? extends Directory> type : List.of(Mp4Directory.class, QuickTimeDirectory.class)) {
            Directory d = metadata.getFirstDirectoryOfType(type);
            if (d != null && d.containsTag(Mp4Directory.TAG_DURATION_SECONDS)) {
                com.drew.lang.Rational seconds = d.getRational(Mp4Directory.TAG_DURATION_SECONDS);
                if (seconds != null && seconds.getDenominator() != 0) {
                    return Math.round(seconds.doubleValue() * 1000);
                }
            }
        }
        return null;
    }

    private static Metadata metadata(Supplier<InputStream> bytes) {
        try (InputStream in = bytes.get()) {
            return ImageMetadataReader.readMetadata(in);
        } catch (ImageProcessingException | IOException | RuntimeException e) {
            return null; // a format it does not know, or a header it cannot read: no metadata, not a failure
        }
    }

    /** EXIF orientation 1-8 (1: as stored). */
    private static int orientation(Metadata metadata) {
        ExifIFD0Directory exif = metadata == null ? null : metadata.getFirstDirectoryOfType(ExifIFD0Directory.class);
        if (exif == null || !exif.containsTag(ExifIFD0Directory.TAG_ORIENTATION)) {
            return 1;
        }
        try {
            int o = exif.getInt(ExifIFD0Directory.TAG_ORIENTATION);
            return o >= 1 && o <= 8 ? o : 1;
        } catch (com.drew.metadata.MetadataException e) {
            return 1;
        }
    }

    /** Width and height from the headers of an image ImageIO does not decode (WebP). */
    private static int[] headerSize(Metadata metadata) {
        WebpDirectory webp = metadata == null ? null : metadata.getFirstDirectoryOfType(WebpDirectory.class);
        if (webp != null && webp.containsTag(WebpDirectory.TAG_IMAGE_WIDTH) && webp.containsTag(WebpDirectory.TAG_IMAGE_HEIGHT)) {
            try {
                return new int[] {webp.getInt(WebpDirectory.TAG_IMAGE_WIDTH), webp.getInt(WebpDirectory.TAG_IMAGE_HEIGHT)};
            } catch (com.drew.metadata.MetadataException e) {
                return null;
            }
        }
        return null;
    }

    /** The image turned as its EXIF orientation says, so that it shows right without the tag. */
    static BufferedImage oriented(BufferedImage image, int orientation) {
        if (orientation == 1) {
            return image;
        }
        int w = image.getWidth();
        int h = image.getHeight();
        boolean swap = orientation >= 5;
        AffineTransform t = new AffineTransform();
        switch (orientation) {
            case 2 -> { t.translate(w, 0); t.scale(-1, 1); }
            case 3 -> { t.translate(w, h); t.rotate(Math.PI); }
            case 4 -> { t.translate(0, h); t.scale(1, -1); }
            case 5 -> { t.rotate(-Math.PI / 2); t.scale(-1, 1); }
            case 6 -> { t.translate(h, 0); t.rotate(Math.PI / 2); }
            case 7 -> t.setTransform(0, -1, -1, 0, h, w); // (x, y) → (h - y, w - x)
            case 8 -> { t.translate(0, w); t.rotate(3 * Math.PI / 2); }
            default -> { }
        }
        BufferedImage out = new BufferedImage(swap ? h : w, swap ? w : h, image.getColorModel().hasAlpha()
                ? BufferedImage.TYPE_INT_ARGB : BufferedImage.TYPE_INT_RGB);
        Graphics2D g = out.createGraphics();
        g.drawImage(image, t, null);
        g.dispose();
        return out;
    }

    /** At most {@code longer} pixels on the longer side, halving step by step for a smooth result; opaque RGB. */
    static BufferedImage scaled(BufferedImage image, int longer) {
        int w = image.getWidth();
        int h = image.getHeight();
        double factor = Math.min(1.0, (double) longer / Math.max(w, h));
        int tw = Math.max(1, (int) Math.round(w * factor));
        int th = Math.max(1, (int) Math.round(h * factor));
        BufferedImage current = image;
        while (current.getWidth() / 2 >= tw && current.getHeight() / 2 >= th) {
            current = draw(current, current.getWidth() / 2, current.getHeight() / 2);
        }
        return draw(current, tw, th);
    }

    private static BufferedImage draw(BufferedImage image, int w, int h) {
        BufferedImage out = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = out.createGraphics();
        g.setColor(Color.WHITE); // a transparent image on white
        g.fillRect(0, 0, w, h);
        g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
        g.setRenderingHint(RenderingHints.KEY_RENDERING, RenderingHints.VALUE_RENDER_QUALITY);
        g.drawImage(image, 0, 0, w, h, null);
        g.dispose();
        return out;
    }

    private static byte[] encode(BufferedImage image, String contentType) throws IOException {
        if (contentType.equals("image/jpeg")) {
            return jpeg(image.getColorModel().hasAlpha() ? draw(image, image.getWidth(), image.getHeight()) : image, 0.92f);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (!ImageIO.write(image, contentType.equals("image/png") ? "png" : "bmp", out)) {
            throw new IOException("no ImageIO writer for " + contentType);
        }
        return out.toByteArray();
    }

    /** A baseline JPEG with no metadata at all (ImageIO writes a bare JFIF header). */
    static byte[] jpeg(BufferedImage image, float quality) throws IOException {
        ImageWriter writer = ImageIO.getImageWritersByFormatName("jpeg").next();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ImageOutputStream ios = ImageIO.createImageOutputStream(out)) {
            writer.setOutput(ios);
            ImageWriteParam param = writer.getDefaultWriteParam();
            param.setCompressionMode(ImageWriteParam.MODE_EXPLICIT);
            param.setCompressionQuality(quality);
            writer.write(null, new IIOImage(image, null, null), param);
        } finally {
            writer.dispose();
        }
        return out.toByteArray();
    }
}
