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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The chat timer {@code chat-send-purge}: every minute, sendIds (one-to-one and group ones) older than
 * {@code ROOST_CHAT_SEND_ID_RETENTION} are deleted, {@value #BATCH} a transaction, until none is left,
 * by one node at a time ({@link OncePerCluster}).
 */
@Singleton
@Startup
@DependsOn("DatabaseMigrator")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class ChatHousekeeping {

    @Inject
    Draining draining;

    private static final Logger LOG = Logger.getLogger(ChatHousekeeping.class.getName());
    static final int BATCH = 1_000;

    @EJB
    ChatStore store;

    @EJB
    io.roost.chat.store.GroupChatStore groupStore;

    @EJB
    OncePerCluster once;

    @Inject
    ChatSettings settings;

    private final AtomicBoolean purging = new AtomicBoolean();

    @Schedule(hour = "*", minute = "*", persistent = false, info = "chat-send-purge")
    void purgeTick() {
        if (draining.isDraining()) {
            return; // a draining node claims no more work
        }
        if (!purging.compareAndSet(false, true)) {
            return;
        }
        try {
            purgeSends();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "chat sendId purge failed; the next tick retries", e);
        } finally {
            purging.set(false);
        }
    }

    /** Deletes expired sendIds in batches; how many. */
    public int purgeSends() {
        int total = 0;
        int n;
        do {
            n = once.run("chat-send-purge", () -> store.purgeSends(settings.sendIdRetention(), BATCH));
            total += n;
        } while (n >= BATCH);
        do {
            n = once.run("chat-send-purge", () -> groupStore.purgeSends(settings.sendIdRetention(), BATCH));
            total += n;
        } while (n >= BATCH);
        return total;
    }
}
