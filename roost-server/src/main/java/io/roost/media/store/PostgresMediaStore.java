package io.roost.media.store;

import jakarta.ejb.EJB;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.Supplier;

/** The db store: a blob's bytes are its {@code media_chunk} rows (written in the caller's transaction). */
public class PostgresMediaStore implements MediaStore {

    @EJB
    ChunkStore chunks;

    public PostgresMediaStore() {
    }

    public PostgresMediaStore(ChunkStore chunks) {
        this.chunks = chunks;
    }

    @Override
    public String name() {
        return "db";
    }

    @Override
    public void put(long blobId, Supplier<InputStream> bytes, long length, String contentType) throws IOException {
        try (InputStream in = bytes.get()) {
            chunks.write(blobId, in, length);
        }
    }

    @Override
    public InputStream open(long blobId, long offset, long length) {
        return new ChunkStore.ChunkInputStream(chunks::at, blobId, offset, length);
    }

    @Override
    public void delete(long blobId) {
        chunks.delete(blobId);
    }
}
