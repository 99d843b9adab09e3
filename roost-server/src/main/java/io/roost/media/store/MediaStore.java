package io.roost.media.store;

import java.io.IOException;
import java.io.InputStream;
import java.util.function.Supplier;

/**
 * Where stored files' bytes live, by blob id: PostgreSQL ({@link PostgresMediaStore}, the default)
 * or an S3-compatible bucket. Uploads in progress are always staged in PostgreSQL's chunks; a
 * finished file stays there (db) or is copied to the bucket (s3). Nothing here holds a whole large
 * file in memory: bytes go in and come out as streams.
 */
public interface MediaStore {

    /** The size of PostgreSQL's chunks (uploads in progress and the db store). */
    int CHUNK_BYTES = 256 * 1024;

    /** {@code db} or {@code s3}: what {@code media.store} records. */
    String name();

    /** Stores exactly {@code length} bytes as blob {@code blobId}; {@code bytes} opens them (more than once if the store must). */
    void put(long blobId, Supplier<InputStream> bytes, long length, String contentType) throws IOException;

    /** {@code length} bytes of the blob from {@code offset}, streamed. */
    InputStream open(long blobId, long offset, long length) throws IOException;

    /** Removes the blob (nothing if it is not there). */
    void delete(long blobId) throws IOException;
}
