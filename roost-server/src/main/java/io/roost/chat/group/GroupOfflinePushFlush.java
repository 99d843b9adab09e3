package io.roost.chat.group;

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
 * The timer {@code group-offline-push}: every second, the due group offline-push rows go out, a
 * batch a transaction, until none is due. Every node runs it; rows another node is sending are
 * skipped ({@code FOR UPDATE SKIP LOCKED}), so each goes out once.
 */
@Singleton
@Startup
@DependsOn("DatabaseMigrator")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class GroupOfflinePushFlush {

    @Inject
    Draining draining;

    private static final Logger LOG = Logger.getLogger(GroupOfflinePushFlush.class.getName());

    @Inject
    GroupOfflinePushes pushes;

    private final AtomicBoolean flushing = new AtomicBoolean();

    @Schedule(hour = "*", minute = "*", second = "*", persistent = false, info = "group-offline-push")
    void tick() {
        if (draining.isDraining()) {
            return; // a draining node claims no more work
        }
        if (!flushing.compareAndSet(false, true)) {
            return;
        }
        try {
            while (pushes.flush() >= GroupOfflinePushes.FLUSH_BATCH) {
                // more are due: the next batch
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "group offline-push flush failed; the next tick retries", e);
        } finally {
            flushing.set(false);
        }
    }
}
