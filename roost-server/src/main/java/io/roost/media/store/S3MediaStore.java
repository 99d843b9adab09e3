package io.roost.media.store;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * The s3 store: each blob an object {@code media/<blobId>} in one bucket of an S3-compatible
 * service, through the AWS SDK for Java (its URL-connection HTTP client: no Netty, no Apache
 * client in the WAR). Reads ask for their range of the object; the bucket serves the bytes.
 */
public class S3MediaStore implements MediaStore {

    /**
     * Where the bucket is and how to reach it ({@code ROOST_MEDIA_S3_*}); {@code publicEndpoint}: the
     * address clients reach it by, for redirects to signed URLs (null: the same endpoint).
     */
    public record Bucket(String endpoint, String region, String bucket, String accessKey, String secretKey, boolean pathStyle,
                         boolean createIfMissing, String publicEndpoint) {
    }

    private final S3Client s3;
    private final S3Presigner presigner;
    private final String bucket;

    public S3MediaStore(Bucket b) {
        if (b.bucket() == null || b.bucket().isBlank()) {
            throw new IllegalStateException("ROOST_MEDIA_STORE=s3 needs ROOST_MEDIA_S3_BUCKET");
        }
        AwsCredentialsProvider credentials = b.accessKey() == null || b.accessKey().isBlank()
                ? DefaultCredentialsProvider.builder().build()
                : StaticCredentialsProvider.create(AwsBasicCredentials.create(b.accessKey(), b.secretKey()));
        S3ClientBuilder builder = S3Client.builder()
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .region(Region.of(b.region()))
                .credentialsProvider(credentials)
                // checksums only where the API requires them: S3-compatible servers differ in the newer ones
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(b.pathStyle()).build());
        if (b.endpoint() != null && !b.endpoint().isBlank()) {
            builder.endpointOverride(URI.create(b.endpoint()));
        }
        this.s3 = builder.build();
        this.bucket = b.bucket();
        String visible = b.publicEndpoint() != null && !b.publicEndpoint().isBlank() ? b.publicEndpoint() : b.endpoint();
        S3Presigner.Builder presign = S3Presigner.builder().region(Region.of(b.region())).credentialsProvider(credentials)
                .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(b.pathStyle()).build());
        if (visible != null && !visible.isBlank()) {
            presign.endpointOverride(URI.create(visible));
        }
        this.presigner = presign.build();
        if (b.createIfMissing()) {
            try {
                s3.headBucket(r -> r.bucket(bucket));
            } catch (S3Exception e) { // NoSuchBucketException, or a bare 404 from servers that send no code to a HEAD
                if (e.statusCode() != 404) {
                    throw e;
                }
                s3.createBucket(r -> r.bucket(bucket));
            }
        }
    }

    @Override
    public String name() {
        return "s3";
    }

    @Override
    public void put(long blobId, Supplier<InputStream> bytes, long length, String contentType) throws IOException {
        try {
            // a provider, not one stream: the SDK may read the bytes twice (the payload's signature over plain HTTP)
            s3.putObject(r -> r.bucket(bucket).key(key(blobId)).contentType(contentType).contentLength(length),
                    RequestBody.fromContentProvider(bytes::get, length, contentType));
        } catch (SdkException e) {
            throw new IOException("the bucket did not take blob " + blobId + ": " + e.getMessage(), e);
        }
    }

    @Override
    public InputStream open(long blobId, long offset, long length) throws IOException {
        if (length == 0) {
            return InputStream.nullInputStream();
        }
        try {
            return s3.getObject(r -> r.bucket(bucket).key(key(blobId)).range("bytes=" + offset + "-" + (offset + length - 1)));
        } catch (SdkException e) {
            throw new IOException("the bucket did not give blob " + blobId + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void delete(long blobId) throws IOException {
        try {
            s3.deleteObject(r -> r.bucket(bucket).key(key(blobId)));
        } catch (SdkException e) {
            throw new IOException("the bucket did not delete blob " + blobId + ": " + e.getMessage(), e);
        }
    }

    /**
     * A URL that fetches the blob straight from the bucket until {@code ttl} has passed, the bucket
     * answering with this content type, disposition and cache control (a client's Range goes with it).
     */
    public URI signedUrl(long blobId, Duration ttl, String contentType, String disposition, String cacheControl) {
        return URI.create(presigner.presignGetObject(p -> p.signatureDuration(ttl).getObjectRequest(r -> r.bucket(bucket).key(key(blobId))
                .responseContentType(contentType).responseContentDisposition(disposition).responseCacheControl(cacheControl)))
                .url().toString());
    }

    private static String key(long blobId) {
        return "media/" + blobId;
    }
}
