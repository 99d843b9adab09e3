package io.roost.media;

import io.roost.platform.cluster.Draining;
import io.roost.media.store.MediaRecords;
import io.roost.platform.cluster.OncePerCluster;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.EJB;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The media timer {@code media-purge}: every minute, by one node at a time ({@link OncePerCluster}),
 * in batches of {@value #BATCH}: uploads abandoned before their last byte for
 * {@code ROOST_MEDIA_UNUSED_AFTER} are given up, and stored files older than that which no message
 * names (never sent, or whose last message was recalled, deleted or purged by retention) are
 * removed. A file a send named in the last hour is left alone, so a message being written is never
 * left naming a removed file.
 */
@Singleton
@Startup
@DependsOn("DatabaseMigrator")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class MediaHousekeeping {

    @Inject
    Draining draining;

    private static final Logger LOG = Logger.getLogger(MediaHousekeeping.class.getName());
    static final int BATCH = 100;

    @EJB
    MediaRecords records;

    @EJB
    OncePerCluster once;

    @Inject
    MediaSettings settings;

    @Inject
    MediaUploads uploads;

    @Inject
    MediaLibrary library;

    @Inject
    Instance<MediaViewers> viewers;

    private final AtomicBoolean purging = new AtomicBoolean();

    @Schedule(hour = "*", minute = "*", persistent = false, info = "media-purge")
    void purgeTick() {
        if (draining.isDraining()) {
            return; // a draining node claims no more work
        }
        if (!purging.compareAndSet(false, true)) {
            return;
        }
        try {
            purge(settings.unusedAfter());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "media purge failed; the next tick retries", e);
        } finally {
            purging.set(false);
        }
    }

    /** One purge: abandoned uploads, then unnamed files, older than {@code age}; how many of each. */
    public int[] purge(Duration age) {
        int uploadsGiven = 0;
        int filesRemoved = 0;
        for (int n = BATCH; n == BATCH; ) {
            n = once.run("media-purge", () -> {
                List<MediaRecords.UploadRow> stale = records.abandonedUploads(age, BATCH);
                stale.forEach(u -> uploads.discard(u.ownerUid(), u.id()));
                return stale.size();
            });
            uploadsGiven += n;
        }
        long[] after = {0}; // the last candidate looked at: files that are named stay candidates
        for (int n = BATCH; n == BATCH; ) {
            int[] removed = {0};
            n = once.run("media-purge", () -> {
                List<Long> candidates = records.unusedCandidates(age, after[0], BATCH);
                Set<Long> named = candidates.isEmpty() || !viewers.isResolvable() ? Set.of() : viewers.get().named(candidates);
                for (long id : candidates) {
                    if (!named.contains(id)) {
                        library.remove(id, "purge");
                        removed[0]++;
                    }
                    after[0] = id;
                }
                return candidates.size();
            });
            filesRemoved += removed[0];
        }
        if (uploadsGiven + filesRemoved > 0) {
            LOG.info("media purge: " + uploadsGiven + " abandoned uploads given up, " + filesRemoved + " unnamed files removed");
        }
        return new int[] {uploadsGiven, filesRemoved};
    }
}
