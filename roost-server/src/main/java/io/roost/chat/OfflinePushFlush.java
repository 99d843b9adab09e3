package io.roost.chat;

import io.roost.platform.cluster.Draining;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The timer {@code chat-offline-push}: every second, the due offline-push rows go out, a batch a
 * transaction, until none is due. Every node runs it; rows another node is sending are skipped,
 * so each goes out once. Every tenth second or so it also reads the offline backlog's gauge (both
 * buffers, one-to-one and group).
 */
@Singleton
@Startup
@DependsOn("DatabaseMigrator")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class OfflinePushFlush {

    @Inject
    Draining draining;

    private static final Logger LOG = Logger.getLogger(OfflinePushFlush.class.getName());

    @Inject
    OfflinePushes pushes;

    @Inject
    ChatMeters meters;

    private final AtomicBoolean flushing = new AtomicBoolean();

    @Schedule(hour = "*", minute = "*", second = "*", persistent = false, info = "chat-offline-push")
    void tick() {
        if (draining.isDraining()) {
            return; // a draining node claims no more work
        }
        if (meters.offlineBacklogDue()) { // before the flush, which may take long when a backlog goes out
            try {
                meters.offlineBacklog(pushes.waiting());
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "offline backlog not read; the next interval tries again", e);
            }
        }
        if (!flushing.compareAndSet(false, true)) {
            return;
        }
        try {
            while (pushes.flush() >= OfflinePushes.FLUSH_BATCH) {
                // more are due: the next batch
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "offline-push flush failed; the next tick retries", e);
        } finally {
            flushing.set(false);
        }
    }
}
