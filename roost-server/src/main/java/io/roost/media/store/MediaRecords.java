package io.roost.media.store;

import io.roost.platform.metrics.StoreTimed;
import io.roost.platform.store.Jdbc;
import io.roost.platform.store.StatementFailed;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/** The SQL of media's rows: {@code media_upload}, {@code media} and {@code media_usage}. */
@StoreTimed
@Stateless
@TransactionAttribute(TransactionAttributeType.SUPPORTS)
public class MediaRecords {

    /** An upload in progress. */
    public record UploadRow(long id, long ownerUid, long size, long received, byte[] sha256, String name, OffsetDateTime createdAt,
                            OffsetDateTime updatedAt) {
    }

    /** A stored file. */
    public record MediaRow(long id, long ownerUid, byte[] uploadSha256, byte[] sha256, long size, String contentType, String kind,
                           String name, Integer width, Integer height, Long durationMs, String store, long blobId, Long thumbBlobId,
                           Long thumbSize, OffsetDateTime createdAt, OffsetDateTime removedAt) {
    }

    /** A user's bytes held and uploads in the current minute. */
    public record Usage(long bytes, int windowUploads, OffsetDateTime windowStart) {
    }

    private static final String MEDIA_COLUMNS = """
            id, owner_uid, upload_sha256, sha256, size, content_type, kind, name, width, height, duration_ms, store, blob_id,
            thumb_blob_id, thumb_size, created_at, removed_at""";

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    // ---- uploads ----

    public void insertUpload(long id, long ownerUid, long size, byte[] sha256, String name) {
        update("INSERT INTO media_upload (id, owner_uid, size, sha256, name) VALUES (?, ?, ?, ?, ?)", id, ownerUid, size, sha256, name);
    }

    public Optional<UploadRow> upload(long id) {
        return Jdbc.first(query("SELECT id, owner_uid, size, received, sha256, name, created_at, updated_at FROM media_upload WHERE id = ?",
                MediaRecords::upload, id));
    }

    /** The upload, locked until the transaction ends. */
    public Optional<UploadRow> lockUpload(long id) {
        return Jdbc.first(query("SELECT id, owner_uid, size, received, sha256, name, created_at, updated_at FROM media_upload WHERE id = ? FOR UPDATE",
                MediaRecords::upload, id));
    }

    /** Moves the upload from {@code from} to {@code to} bytes; false when it did not hold {@code from} (a racing append). */
    public boolean advanceUpload(long id, long from, long to) {
        return update("UPDATE media_upload SET received = ?, updated_at = now() WHERE id = ? AND received = ?", to, id, from) == 1;
    }

    public boolean deleteUpload(long id) {
        return update("DELETE FROM media_upload WHERE id = ?", id) == 1;
    }

    // ---- files ----

    /** Inserts the file; the row as stored (its {@code created_at} the database's). */
    public MediaRow insertMedia(MediaRow m) {
        return query("INSERT INTO media (" + MEDIA_COLUMNS.replace(", created_at, removed_at", "")
                + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING " + MEDIA_COLUMNS, MediaRecords::media,
                m.id(), m.ownerUid(), m.uploadSha256(), m.sha256(), m.size(), m.contentType(), m.kind(), m.name(), m.width(), m.height(), m.durationMs(), m.store(), m.blobId(), m.thumbBlobId(),
                m.thumbSize()).get(0);
    }

    public Optional<MediaRow> media(long id) {
        return Jdbc.first(query("SELECT " + MEDIA_COLUMNS + " FROM media WHERE id = ?", MediaRecords::media, id));
    }

    /** The user's stored file with this uploaded content, if any (not removed). */
    public Optional<MediaRow> byContent(long ownerUid, byte[] uploadSha256) {
        return Jdbc.first(query("SELECT " + MEDIA_COLUMNS + " FROM media WHERE owner_uid = ? AND upload_sha256 = ? AND removed_at IS NULL",
                MediaRecords::media, ownerUid, uploadSha256));
    }

    /** Files among {@code ids} that were removed. */
    public List<Long> removed(Collection<Long> ids) {
        return query("SELECT id FROM media WHERE id = ANY(?) AND removed_at IS NOT NULL", rs -> rs.getLong(1), ids.toArray(Long[]::new));
    }

    /** A send names the file: it is not removed by the purge for a while (the purge skips recently used files). */
    public boolean markUsed(long id) {
        return update("UPDATE media SET used_at = now() WHERE id = ? AND removed_at IS NULL", id) == 1;
    }

    /** Marks the file removed; the row as it was, or empty when there is none or it was removed already. Locks it. */
    public Optional<MediaRow> markRemoved(long id, String by) {
        return Jdbc.first(query("UPDATE media SET removed_at = now(), removed_by = ? WHERE id = ? AND removed_at IS NULL RETURNING "
                + MEDIA_COLUMNS, MediaRecords::media, by, id));
    }

    /** Files no send named lately and older than {@code age}, by id after {@code afterId}: the purge's candidates (it asks who names them). */
    public List<Long> unusedCandidates(java.time.Duration age, long afterId, int limit) {
        return query("""
                SELECT id FROM media WHERE removed_at IS NULL AND created_at < now() - ?::interval
                    AND (used_at IS NULL OR used_at < now() - interval '1 hour') AND id > ?
                ORDER BY id LIMIT ?""", rs -> rs.getLong(1), age.toSeconds() + " seconds", afterId, limit);
    }

    /** Uploads that stopped before their last byte longer than {@code age} ago, locked (skipping those another node holds). */
    public List<UploadRow> abandonedUploads(java.time.Duration age, int limit) {
        return query("SELECT id, owner_uid, size, received, sha256, name, created_at, updated_at FROM media_upload "
                + "WHERE updated_at < now() - ?::interval ORDER BY updated_at LIMIT ? FOR UPDATE SKIP LOCKED",
                MediaRecords::upload, age.toSeconds() + " seconds", limit);
    }

    // ---- usage: the quota and the upload rate ----

    /**
     * Counts one more upload of {@code bytes} for the user, if it stays within {@code quota} bytes and
     * {@code perMinute} uploads in the current minute; false otherwise (nothing changed). The row is
     * locked until the transaction ends.
     */
    public boolean reserve(long ownerUid, long bytes, long quota, int perMinute) {
        return !query("""
                INSERT INTO media_usage AS u (owner_uid, bytes, window_start, window_uploads) SELECT ?, ?::int8, now(), 1 WHERE ?::int8 <= ?
                ON CONFLICT (owner_uid) DO UPDATE SET bytes = u.bytes + EXCLUDED.bytes,
                    window_uploads = CASE WHEN u.window_start > now() - interval '1 minute' THEN u.window_uploads + 1 ELSE 1 END,
                    window_start = CASE WHEN u.window_start > now() - interval '1 minute' THEN u.window_start ELSE now() END
                WHERE u.bytes + EXCLUDED.bytes <= ? AND (u.window_start <= now() - interval '1 minute' OR u.window_uploads < ?)
                RETURNING u.bytes""", rs -> rs.getLong(1), ownerUid, bytes, bytes, quota, quota, perMinute).isEmpty();
    }

    /** Adds {@code delta} (negative: gives back) to the user's bytes held. */
    public void adjust(long ownerUid, long delta) {
        update("UPDATE media_usage SET bytes = greatest(0, bytes + ?) WHERE owner_uid = ?", delta, ownerUid);
    }

    public Optional<Usage> usage(long ownerUid) {
        return Jdbc.first(query("SELECT bytes, window_uploads, window_start FROM media_usage WHERE owner_uid = ?",
                rs -> new Usage(rs.getLong(1), rs.getInt(2), rs.getObject(3, OffsetDateTime.class)), ownerUid));
    }

    private static UploadRow upload(ResultSet rs) throws SQLException {
        return new UploadRow(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getBytes(5), rs.getString(6),
                rs.getObject(7, OffsetDateTime.class), rs.getObject(8, OffsetDateTime.class));
    }

    private static MediaRow media(ResultSet rs) throws SQLException {
        return new MediaRow(rs.getLong(1), rs.getLong(2), rs.getBytes(3), rs.getBytes(4), rs.getLong(5), rs.getString(6), rs.getString(7),
                rs.getString(8), (Integer) rs.getObject(9), (Integer) rs.getObject(10), (Long) rs.getObject(11), rs.getString(12),
                rs.getLong(13), (Long) rs.getObject(14), (Long) rs.getObject(15), rs.getObject(16, OffsetDateTime.class),
                rs.getObject(17, OffsetDateTime.class));
    }

    private <T> List<T> query(String sql, Jdbc.Row<T> row, Object... params) {
        return Jdbc.query(dataSource, e -> new StatementFailed("media", e), sql, row, params);
    }

    private int update(String sql, Object... params) {
        return Jdbc.update(dataSource, e -> new StatementFailed("media", e), sql, params);
    }
}
