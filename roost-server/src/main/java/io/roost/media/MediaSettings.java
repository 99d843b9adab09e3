package io.roost.media;

import io.roost.platform.config.Durations;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Media configuration (environment variables in docs/configuration.md). */
@ApplicationScoped
public class MediaSettings {

    /** The types a file may have unless {@code ROOST_MEDIA_TYPES} says otherwise; {@code x/*} is any subtype. */
    static final String DEFAULT_TYPES = "image/jpeg,image/png,image/gif,image/webp,image/heic,image/bmp,audio/*,video/*,"
            + "application/pdf,application/zip,application/x-tika-ooxml,application/x-tika-msoffice,application/gzip,"
            + "application/x-7z-compressed,text/plain,application/octet-stream";

    @Inject
    @ConfigProperty(name = "roost.media.store", defaultValue = "db")
    String store;

    @Inject
    @ConfigProperty(name = "roost.media.max-bytes", defaultValue = "104857600")
    long maxBytes;

    @Inject
    @ConfigProperty(name = "roost.media.inband-max-bytes", defaultValue = "1048576")
    long inbandMaxBytes;

    @Inject
    @ConfigProperty(name = "roost.media.quota-bytes", defaultValue = "1073741824")
    long quotaBytes;

    @Inject
    @ConfigProperty(name = "roost.media.uploads-per-minute", defaultValue = "60")
    int uploadsPerMinute;

    @Inject
    @ConfigProperty(name = "roost.media.types", defaultValue = DEFAULT_TYPES)
    String types;

    @Inject
    @ConfigProperty(name = "roost.media.strip-metadata", defaultValue = "true")
    boolean stripMetadata;

    @Inject
    @ConfigProperty(name = "roost.media.image-max-pixels", defaultValue = "40000000")
    long imageMaxPixels;

    @Inject
    @ConfigProperty(name = "roost.media.thumbnail-pixels", defaultValue = "320")
    int thumbnailPixels;

    @Inject
    @ConfigProperty(name = "roost.media.external-urls", defaultValue = "true")
    boolean externalUrls;

    @Inject
    @ConfigProperty(name = "roost.media.url-secret")
    Optional<String> urlSecret;

    @Inject
    @ConfigProperty(name = "roost.media.url-ttl", defaultValue = "10m")
    String urlTtl;

    @Inject
    @ConfigProperty(name = "roost.media.unused-after", defaultValue = "24h")
    String unusedAfter;

    @Inject
    @ConfigProperty(name = "roost.media.s3.endpoint")
    Optional<String> s3Endpoint;

    @Inject
    @ConfigProperty(name = "roost.media.s3.region", defaultValue = "us-east-1")
    String s3Region;

    @Inject
    @ConfigProperty(name = "roost.media.s3.bucket")
    Optional<String> s3Bucket;

    @Inject
    @ConfigProperty(name = "roost.media.s3.access-key")
    Optional<String> s3AccessKey;

    @Inject
    @ConfigProperty(name = "roost.media.s3.secret-key")
    Optional<String> s3SecretKey;

    @Inject
    @ConfigProperty(name = "roost.media.s3.path-style", defaultValue = "true")
    boolean s3PathStyle;

    @Inject
    @ConfigProperty(name = "roost.media.s3.create-bucket", defaultValue = "false")
    boolean s3CreateBucket;

    @Inject
    @ConfigProperty(name = "roost.media.s3.redirect", defaultValue = "false")
    boolean s3Redirect;

    @Inject
    @ConfigProperty(name = "roost.media.s3.public-endpoint")
    Optional<String> s3PublicEndpoint;

    /** Whether a download of a file in the bucket is answered with a redirect to a signed URL of it, instead of its bytes. */
    public boolean s3Redirect() {
        return s3Redirect;
    }

    /** The bucket of the s3 store ({@code ROOST_MEDIA_S3_*}); its keys from the environment, never from a file. */
    public io.roost.media.store.S3MediaStore.Bucket s3() {
        return new io.roost.media.store.S3MediaStore.Bucket(s3Endpoint.orElse(null), s3Region, s3Bucket.orElse(null),
                s3AccessKey.orElse(null), s3SecretKey.orElse(null), s3PathStyle, s3CreateBucket, s3PublicEndpoint.orElse(null));
    }

    /** Where stored files' bytes live: {@code db} (PostgreSQL) or {@code s3}. */
    public String store() {
        return store.trim().toLowerCase(Locale.ROOT);
    }

    /** The largest file an upload may have. */
    public long maxBytes() {
        return maxBytes;
    }

    /** The largest file that may be uploaded or downloaded in band, over the WebSocket. */
    public long inbandMaxBytes() {
        return inbandMaxBytes;
    }

    /** Bytes a user may hold (stored files and uploads in progress). */
    public long quotaBytes() {
        return quotaBytes;
    }

    /** Uploads a user may start per minute. */
    public int uploadsPerMinute() {
        return uploadsPerMinute;
    }

    /** The allowed content types. */
    public List<String> types() {
        return Arrays.stream(types.split(",")).map(t -> t.trim().toLowerCase(Locale.ROOT)).filter(t -> !t.isEmpty()).toList();
    }

    /** Whether images are re-encoded without their metadata (EXIF: location, camera, time). */
    public boolean stripMetadata() {
        return stripMetadata;
    }

    /** The largest image (width × height) that is decoded; a larger one is refused. */
    public long imageMaxPixels() {
        return imageMaxPixels;
    }

    /** A thumbnail's longer side. */
    public int thumbnailPixels() {
        return thumbnailPixels;
    }

    /** Whether a message may name a file by an external URL instead of a media id. */
    public boolean externalUrls() {
        return externalUrls;
    }

    /** The key of signed download links; empty: no links. */
    public Optional<byte[]> urlSecret() {
        return urlSecret.map(String::trim).filter(s -> !s.isEmpty()).map(s -> s.getBytes(StandardCharsets.UTF_8));
    }

    /** How long a signed link is valid. */
    public Duration urlTtl() {
        return Durations.parse(urlTtl);
    }

    /** A file no message names is removed once it is this old. */
    public Duration unusedAfter() {
        return Durations.parse(unusedAfter);
    }
}
