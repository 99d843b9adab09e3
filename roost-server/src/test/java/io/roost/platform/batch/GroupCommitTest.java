package io.roost.platform.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.transaction.HeuristicMixedException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class GroupCommitTest {

    /**
     * A @Transactional method's commit on a connection the database has just closed throws the checked
     * HeuristicMixedException through its proxy, undeclared. The writer must outlive it: the device-login
     * queue has one writer, and without it every later login waited for ever.
     */
    @Test
    void aWriterOutlivesACheckedExceptionFromItsBatch() throws Exception {
        CountDownLatch applied = new CountDownLatch(1);
        GroupCommit<String> queue = new GroupCommit<>("test", 10, () -> 1, (List<String> batch) -> {
            if (batch.get(0).equals("commit fails")) {
                GroupCommitTest.<RuntimeException>sneakyThrow(new HeuristicMixedException());
            }
            applied.countDown();
        });
        queue.start(PlainThreads.FACTORY, 1);
        try {
            queue.offer("commit fails");
            queue.offer("next");
            assertTrue(applied.await(5, TimeUnit.SECONDS), "the item after the failed batch is applied");
        } finally {
            queue.stop();
        }
    }

    /**
     * Paced: an item after a quiet spell goes at once; a stream that arrives meanwhile waits for
     * the interval and goes as one batch.
     */
    @Test
    void aPacedWriterBatchesAStreamAndLetsALoneItemGoAtOnce() throws Exception {
        Duration pacing = Duration.ofMillis(400);
        List<Long> starts = new CopyOnWriteArrayList<>();
        List<Integer> sizes = new CopyOnWriteArrayList<>();
        GroupCommit<Integer> queue = new GroupCommit<>("paced", 100, () -> 100, pacing, (List<Integer> batch) -> {
            starts.add(System.nanoTime());
            sizes.add(batch.size());
        });
        queue.start(PlainThreads.FACTORY, 1);
        try {
            long offered = System.nanoTime();
            queue.offer(0);
            awaitApplied(sizes, 1);
            assertTrue(starts.get(0) - offered < pacing.toNanos() / 2, "a lone item does not wait for the pacing");
            for (int i = 1; i <= 10; i++) {
                queue.offer(i);
                Thread.sleep(5);
            }
            awaitApplied(sizes, 11);
            assertEquals(List.of(1, 10), sizes, "the stream went as one batch");
            assertTrue(starts.get(1) - starts.get(0) >= pacing.toNanos() * 9 / 10, "the second batch waited for the interval");
        } finally {
            queue.stop();
        }
    }

    private static void awaitApplied(List<Integer> sizes, int items) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (sizes.stream().mapToInt(Integer::intValue).sum() < items && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(items, sizes.stream().mapToInt(Integer::intValue).sum());
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> void sneakyThrow(Throwable t) throws E {
        throw (E) t;
    }
}
