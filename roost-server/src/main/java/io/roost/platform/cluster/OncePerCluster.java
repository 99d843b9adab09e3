package io.roost.platform.cluster;

import io.roost.platform.store.TaskLockStore;
import jakarta.ejb.EJB;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import java.util.function.IntSupplier;

/**
 * Cluster-wide timer work done by one node at a time. Every node runs every timer (all are
 * non-persistent {@code @Schedule}s); a task whose statements would otherwise run on every node at
 * once — a plain {@code DELETE} or {@code UPDATE} over old rows, which two nodes would both scan and
 * then wait on each other's row locks for — runs each batch through {@link #run}: in a transaction
 * of its own that first takes the task's transaction-scoped advisory lock
 * ({@code pg_try_advisory_xact_lock}). The node that gets it does the batch; the others skip their
 * tick. The lock ends with the transaction, also when its node dies, so no node owns a task and
 * the survivors' next tick does it. (Tasks that claim their rows atomically — {@code FOR UPDATE
 * SKIP LOCKED}, a conditional update, {@code DELETE … RETURNING} — need none of this:
 * docs/architecture.md lists every timer and which kind it is.)
 */
@Stateless
public class OncePerCluster {

    @EJB
    TaskLockStore locks;

    /**
     * Runs one batch of {@code task} in a new transaction if no other node is running one now;
     * what the batch returns (rows done), or 0 when another node holds the task, which ends a
     * caller's "repeat while the batch was full" loop.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int run(String task, IntSupplier batch) {
        return locks.tryLock(task) ? batch.getAsInt() : 0;
    }
}
