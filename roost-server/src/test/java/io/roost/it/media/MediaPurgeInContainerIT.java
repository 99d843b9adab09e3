package io.roost.it.media;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.roost.chat.ChatService;
import io.roost.chat.SendCommand;
import io.roost.identity.AccountService;
import io.roost.it.InContainer;
import io.roost.it.InContainerUsers;
import io.roost.media.MediaFile;
import io.roost.media.MediaHousekeeping;
import io.roost.media.MediaUploads;
import io.roost.platform.json.Jsonp;
import jakarta.annotation.Resource;
import jakarta.inject.Inject;
import java.io.ByteArrayInputStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The media purge against the real database: files no message names (never sent, or whose message
 * was recalled) go once they are older than the age, a file a message names stays, and an upload
 * abandoned before its last byte is given up — bytes and quota alike. Rows are aged with SQL, so the
 * suite's own timer (24 h) leaves everything else alone.
 */
@InContainer
class MediaPurgeInContainerIT {

    @Inject
    MediaHousekeeping housekeeping;

    @Inject
    MediaUploads uploads;

    @Inject
    ChatService chat;

    @Inject
    AccountService accounts;

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource db;

    @Test
    void unnamedFilesAndAbandonedUploadsGoNamedFilesStay() throws Exception {
        long a = InContainerUsers.create(accounts, "mp-");
        long b = InContainerUsers.create(accounts, "mp-");
        long unsent = stored(a, 70L).id().transform(Long::parseLong);
        long sent = stored(a, 71L).id().transform(Long::parseLong);
        long recalled = stored(a, 72L).id().transform(Long::parseLong);
        send(a, b, sent);
        long seq = send(a, b, recalled);
        chat.recall(a, b, seq);
        long abandoned = Long.parseLong(uploads.start(a, 1000, null, null, 10_000).id());
        uploads.append(a, abandoned, 0, new ByteArrayInputStream(MediaFiles.pdf(400, 73L)));
        age(a);

        int[] purged = housekeeping.purge(Duration.ofDays(1));
        assertEquals(1, purged[0], "the abandoned upload");
        assertEquals(2, purged[1], "the unsent file and the recalled message's file");
        try (Connection c = db.getConnection()) {
            assertNotNull(removedAt(c, unsent));
            assertNotNull(removedAt(c, recalled));
            assertNull(removedAt(c, sent), "a message names it");
            assertEquals(0, count(c, "SELECT count(*) FROM media_chunk WHERE blob_id = ANY(?)", new Long[] {unsent, recalled, abandoned}),
                    "their bytes are gone");
            assertEquals(0, count(c, "SELECT count(*) FROM media_upload WHERE id = ?", abandoned));
            assertEquals(count(c, "SELECT size FROM media WHERE id = ?", sent),
                    count(c, "SELECT bytes FROM media_usage WHERE owner_uid = ?", a), "the quota holds what is left");
        }
        assertEquals(0, housekeeping.purge(Duration.ofDays(1))[1], "nothing more to purge");
    }

    private MediaFile stored(long owner, long seed) throws Exception {
        byte[] file = MediaFiles.pdf(3000, seed);
        long upload = Long.parseLong(uploads.start(owner, file.length, null, null, 10_000).id());
        return uploads.append(owner, upload, 0, new ByteArrayInputStream(file)).file();
    }

    private long send(long from, long to, long mediaId) {
        return chat.send(new SendCommand(from, to, "web:w", "mp-" + UUID.randomUUID(), "file", Jsonp.PROVIDER.createObjectBuilder()
                .add("media", Jsonp.PROVIDER.createObjectBuilder().add("id", Long.toString(mediaId))).build(), null, 0, false)).seq();
    }

    /** The user's files and uploads, two days old and not used since. */
    private void age(long owner) throws Exception {
        try (Connection c = db.getConnection()) {
            for (String sql : new String[] {"UPDATE media SET created_at = now() - interval '2 days', used_at = now() - interval '2 days' "
                    + "WHERE owner_uid = ?", "UPDATE media_upload SET updated_at = now() - interval '2 days' WHERE owner_uid = ?"}) {
                try (PreparedStatement ps = c.prepareStatement(sql)) {
                    ps.setLong(1, owner);
                    ps.executeUpdate();
                }
            }
        }
    }

    private static Object removedAt(Connection c, long id) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("SELECT removed_at FROM media WHERE id = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getObject(1);
            }
        }
    }

    private static long count(Connection c, String sql, Object param) throws Exception {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            if (param instanceof Long[] ids) {
                ps.setArray(1, c.createArrayOf("int8", ids));
            } else {
                ps.setObject(1, param);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
