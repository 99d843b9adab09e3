package io.roost.chat;

import io.roost.platform.cluster.Draining;
import io.roost.chat.store.ChatStore;
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
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The chat timer {@code chat-retention-purge}: every minute, timeline rows and group messages older than
 * {@code ROOST_CHAT_RETENTION} are deleted, partition by partition, {@value #BATCH} rows a
 * transaction, until none is left — short transactions that hold few locks and leave vacuum little
 * to wait for, never one that deletes a day's messages at once; one node at a time
 * ({@link OncePerCluster}). Conversation rows stay: their
 * {@code lastSeq} is how a catch-up tells a device that the messages it lacks are gone.
 */
@Singleton
@Startup
@DependsOn("DatabaseMigrator")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class ChatRetention {

    @Inject
    Draining draining;

    private static final Logger LOG = Logger.getLogger(ChatRetention.class.getName());
    static final int BATCH = 5_000;

    /** What a purge did: rows deleted, and in how many transactions. */
    public record Purged(long rows, int batches) {
    }

    @EJB
    ChatStore store;

    @EJB
    io.roost.chat.store.GroupChatStore groupStore;

    @EJB
    OncePerCluster once;

    @Inject
    ChatSettings settings;

    private final AtomicBoolean purging = new AtomicBoolean();

    @Schedule(hour = "*", minute = "*", persistent = false, info = "chat-retention-purge")
    void purgeTick() {
        if (draining.isDraining()) {
            return; // a draining node claims no more work
        }
        Duration retention = settings.retention();
        if (retention.isZero() || !purging.compareAndSet(false, true)) {
            return;
        }
        try {
            Purged p = purge(retention, BATCH);
            if (p.rows() > 0) {
                LOG.fine(() -> "chat retention purge: " + p.rows() + " rows in " + p.batches() + " transactions");
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "chat retention purge failed; the next tick retries", e);
        } finally {
            purging.set(false);
        }
    }

    /** Each partition's batches, one transaction each, until a batch comes back short. */
    private Purged purge(java.util.List<String> partitions, java.util.function.ToIntBiFunction<String, Integer> purgeBatch, int batch) {
        long rows = 0;
        int batches = 0;
        for (String partition : partitions) {
            int n;
            do {
                n = once.run("chat-retention-purge", () -> purgeBatch.applyAsInt(partition, batch));
                rows += n;
                batches += n > 0 ? 1 : 0;
            } while (n >= batch);
        }
        return new Purged(rows, batches);
    }

    /** Deletes the timeline rows older than {@code age}, {@code batch} a transaction, until none is left. */
    public Purged purge(Duration age, int batch) {
        Purged timeline = purge(store.timelinePartitions(), (partition, n) -> store.purgeTimeline(partition, age, n), batch);
        Purged groups = purge(groupStore.messagePartitions(), (partition, n) -> groupStore.purgeMessages(partition, age, n), batch);
        return new Purged(timeline.rows() + groups.rows(), timeline.batches() + groups.batches());
    }
}
