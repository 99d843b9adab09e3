package io.roost.media.store;

import io.roost.platform.metrics.StoreTimed;
import io.roost.platform.store.Jdbc;
import io.roost.platform.store.StatementFailed;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import javax.sql.DataSource;

/** {@code media_chunk}: a blob as chunks of at most {@link MediaStore#CHUNK_BYTES}, each keyed by the offset it starts at. */
@StoreTimed
@Stateless
@TransactionAttribute(TransactionAttributeType.SUPPORTS)
public class ChunkStore {

    /** A chunk: its bytes, which start at {@code start} in the blob. */
    public record Chunk(long start, byte[] data) {
    }

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    public void insert(long blobId, long start, byte[] data) {
        update("INSERT INTO media_chunk (blob_id, start, data) VALUES (?, ?, ?)", blobId, start, data);
    }

    /** The chunk that holds byte {@code position} (the last one starting at or before it), or null. */
    public Chunk at(long blobId, long position) {
        return Jdbc.first(query("SELECT start, data FROM media_chunk WHERE blob_id = ? AND start <= ? ORDER BY start DESC LIMIT 1",
                rs -> new Chunk(rs.getLong(1), rs.getBytes(2)), blobId, position)).orElse(null);
    }

    public int delete(long blobId) {
        return update("DELETE FROM media_chunk WHERE blob_id = ?", blobId);
    }

    /** Writes {@code length} bytes of {@code in} as the blob's chunks from offset 0 (in the caller's transaction). */
    public void write(long blobId, InputStream in, long length) throws IOException {
        byte[] buffer = new byte[MediaStore.CHUNK_BYTES];
        long at = 0;
        while (at < length) {
            int want = (int) Math.min(buffer.length, length - at);
            int got = in.readNBytes(buffer, 0, want);
            if (got < want) {
                throw new IOException("the stream ended " + (length - at - got) + " bytes short");
            }
            insert(blobId, at, Arrays.copyOf(buffer, got));
            at += got;
        }
    }

    private <T> List<T> query(String sql, Jdbc.Row<T> row, Object... params) {
        return Jdbc.query(dataSource, e -> new StatementFailed("media chunk", e), sql, row, params);
    }

    private int update(String sql, Object... params) {
        return Jdbc.update(dataSource, e -> new StatementFailed("media chunk", e), sql, params);
    }

    /** Finds a chunk: {@link #at(long, long)} through the bean's proxy (each read its own statement). */
    @FunctionalInterface
    public interface ChunkReader {
        Chunk at(long blobId, long position);
    }

    /** A blob's bytes from an offset, chunk after chunk as the stream is read: one chunk in memory at a time. */
    public static final class ChunkInputStream extends InputStream {
        private final ChunkReader store;
        private final long blobId;
        private long position;
        private final long end;
        private Chunk chunk;

        public ChunkInputStream(ChunkReader store, long blobId, long offset, long length) {
            this.store = store;
            this.blobId = blobId;
            this.position = offset;
            this.end = offset + length;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (position >= end) {
                return -1;
            }
            if (len == 0) {
                return 0;
            }
            if (chunk == null || position >= chunk.start() + chunk.data().length) {
                chunk = store.at(blobId, position);
                if (chunk == null || position >= chunk.start() + chunk.data().length) {
                    throw new IOException("blob " + blobId + " has no byte " + position);
                }
            }
            int at = (int) (position - chunk.start());
            int n = (int) Math.min(Math.min(len, chunk.data().length - at), end - position);
            System.arraycopy(chunk.data(), at, b, off, n);
            position += n;
            return n;
        }
    }
}
