package io.roost.platform.batch;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * An executor for the continuations of group-committed work (a send's answer after its batch
 * commits): what a {@link GroupCommit} batch hands to it goes to the target executor as one task
 * when the batch is done, instead of one task per item. A batch of 500 answers then wakes one pool
 * thread, not 500. Outside a batch it hands each task on at once.
 */
public final class BatchHandoff implements Executor {

    private static final Logger LOG = Logger.getLogger(BatchHandoff.class.getName());
    /** The tasks handed over during the current thread's batch, by target; null outside a batch. */
    private static final ThreadLocal<Map<Executor, List<Runnable>>> COLLECTING = new ThreadLocal<>();

    private final Executor target;

    public BatchHandoff(Executor target) {
        this.target = target;
    }

    @Override
    public void execute(Runnable task) {
        Map<Executor, List<Runnable>> collecting = COLLECTING.get();
        if (collecting == null) {
            target.execute(task);
        } else {
            collecting.computeIfAbsent(target, t -> new ArrayList<>()).add(task);
        }
    }

    /** Runs a batch; the tasks it hands to any BatchHandoff go out afterwards, one task per target, in order. */
    static void collect(Runnable batch) {
        Map<Executor, List<Runnable>> collecting = new LinkedHashMap<>();
        COLLECTING.set(collecting);
        try {
            batch.run();
        } finally {
            COLLECTING.remove();
            collecting.forEach((target, tasks) -> target.execute(() -> tasks.forEach(BatchHandoff::runLogged)));
        }
    }

    /** One task's failure must not keep the batch's later tasks from running. */
    private static void runLogged(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "a task handed off after a batch failed", e);
        }
    }
}
