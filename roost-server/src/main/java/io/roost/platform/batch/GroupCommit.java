package io.roost.platform.batch;

import jakarta.enterprise.concurrent.ManagedThreadFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.IntSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Group commit: callers queue work items; a few writer threads each take whatever has queued up
 * (at most batch-max) and hand it to {@code apply} as one batch, which does it in one transaction.
 * Under load a commit carries hundreds of items; when idle, one — so latency stays that of a
 * single transaction while the per-transaction cost is shared. {@code apply} owns the outcome of
 * every item (it completes the callers' futures, on success and on failure alike). Continuations
 * that the completions hand to a {@link BatchHandoff} run as one task after the batch.
 */
public final class GroupCommit<T> {

    private static final Logger LOG = Logger.getLogger(GroupCommit.class.getName());

    private final String name;
    private final BlockingQueue<T> queue;
    private final IntSupplier batchMax;
    private final Consumer<List<T>> apply;
    private final long pacingNanos;
    private final List<Thread> writers = new ArrayList<>();
    private volatile boolean running = true;
    private volatile IntConsumer batchSizes = size -> { };

    public GroupCommit(String name, int capacity, IntSupplier batchMax, Consumer<List<T>> apply) {
        this(name, capacity, batchMax, Duration.ZERO, apply);
    }

    /**
     * With {@code pacing}: a writer starts a batch at most once per {@code pacing}, so a steady
     * stream of items costs one transaction per interval, not one per item or two. For work nobody
     * waits on closely (receipts, cursors): an item that arrives after a quiet spell still goes at
     * once, and one in a stream waits at most {@code pacing}.
     */
    public GroupCommit(String name, int capacity, IntSupplier batchMax, Duration pacing, Consumer<List<T>> apply) {
        this.name = name;
        this.queue = new LinkedBlockingQueue<>(capacity);
        this.batchMax = batchMax;
        this.pacingNanos = pacing.toNanos();
        this.apply = apply;
    }

    /** Tells {@code sizes} the size of every batch a writer takes, before it is applied (a batch-size histogram). */
    public void recordBatches(IntConsumer sizes) {
        this.batchSizes = sizes;
    }

    /** Starts the writers on managed threads (they see the application's naming context and class loader). */
    public void start(ManagedThreadFactory threads, int writerCount) {
        for (int i = 0; i < writerCount; i++) {
            Thread t = threads.newThread(this::writeLoop);
            t.setName(name + "-" + i);
            t.setDaemon(true);
            writers.add(t);
            t.start();
        }
    }

    public void stop() {
        running = false;
        writers.forEach(Thread::interrupt);
    }

    /** False if the queue is full: the caller refuses the work (back-pressure, not unbounded memory). */
    public boolean offer(T item) {
        return queue.offer(item);
    }

    public int queued() {
        return queue.size();
    }

    private void writeLoop() {
        List<T> batch = new ArrayList<>();
        long lastStart = System.nanoTime() - pacingNanos;
        while (running) {
            try {
                T first = queue.poll(1, TimeUnit.SECONDS);
                if (first == null) {
                    continue;
                }
                if (pacingNanos > 0) {
                    LockSupport.parkNanos(pacingNanos - (System.nanoTime() - lastStart));
                    lastStart = System.nanoTime();
                }
                batch.add(first);
                queue.drainTo(batch, batchMax.getAsInt() - 1);
                batchSizes.accept(batch.size());
                BatchHandoff.collect(() -> apply.accept(batch));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (Exception e) {
                // Not only RuntimeException: a @Transactional method's commit can throw a checked
                // HeuristicMixedException (the connection died at commit) straight through its proxy,
                // and a writer that dies leaves every later item waiting for ever.
                LOG.log(Level.SEVERE, name + " writer loop error", e);
            } finally {
                batch.clear();
            }
        }
    }
}
