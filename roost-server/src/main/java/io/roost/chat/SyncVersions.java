package io.roost.chat;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Conversation sync versions, without a per-user counter row. A conversation row a transaction
 * changes gets the version (the transaction's id) × {@value #RANKS} + a rank, the rank counting that
 * owner's rows changed in this transaction ({@link Ranks}, kept as a resource of the transaction).
 * So an owner's versions are distinct, and a transaction that starts later writes larger ones;
 * sends, read reports, deletes and recalls no longer queue on the owner's counter row, which every
 * one of them used to lock.
 *
 * <p>Transaction ids are not commit order: a transaction with a smaller id can commit after one
 * with a larger id. A sync therefore only hands out versions below its <em>horizon</em>, the
 * oldest transaction id still running × {@value #RANKS} ({@link #settled}): every transaction below
 * it has ended, so no version below it can appear later, and a device that stores the largest
 * version it got skips nothing.
 */
@ApplicationScoped
public class SyncVersions {

    /** Ranks per owner and transaction; the SQL side ({@code SyncVersionSql}) multiplies by the same. */
    public static final int RANKS = 65_536;

    /** The key of a transaction's {@link Ranks} among its resources. */
    private static final Object KEY = new Object();

    // Ranks live in the registry, not in a @TransactionScoped bean: that context resolved the bean
    // through the bean manager on every call, a sixth of WildFly's allocation under chat load. The
    // server-wide name, because java:comp is not bound on the send writer's and the tests' threads.
    @Resource(lookup = "java:jboss/TransactionSynchronizationRegistry")
    TransactionSynchronizationRegistry registry;

    /** The rank of the owner's next conversation row changed in the current transaction (which there must be). */
    public int next(long owner) {
        Ranks ranks = (Ranks) registry.getResource(KEY);
        if (ranks == null) {
            ranks = new Ranks();
            registry.putResource(KEY, ranks); // throws when there is no transaction
        }
        return ranks.next(owner);
    }

    /** One transaction's ranks, counted per owner from 0. */
    static final class Ranks {

        private final Map<Long, Integer> taken = new HashMap<>();

        int next(long owner) {
            int rank = taken.merge(owner, 1, Integer::sum) - 1;
            if (rank >= RANKS) {
                throw new IllegalStateException("More than " + RANKS + " conversation rows of user " + owner + " in one transaction");
            }
            return rank;
        }
    }

    /**
     * What a sync may hand out of {@code changed} (in version order) given the horizon: the rows
     * before the first at or above it (a transaction older than that row's may still commit a
     * version below it).
     */
    static List<Conversation> settled(List<Conversation> changed, long horizon) {
        return settled(changed, horizon, Conversation::syncVersion);
    }

    /** The same for any rows in version order, given each one's version. */
    static <T> List<T> settled(List<T> changed, long horizon, java.util.function.ToLongFunction<T> version) {
        int n = 0;
        while (n < changed.size() && version.applyAsLong(changed.get(n)) < horizon) {
            n++;
        }
        return changed.subList(0, n);
    }
}
