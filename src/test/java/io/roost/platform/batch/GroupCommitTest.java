package io.roost.platform.batch;

import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.transaction.HeuristicMixedException;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class GroupCommitTest {

    /** Plain threads: the writers only need a thread factory. */
    private static final ManagedThreadFactory THREADS = new ManagedThreadFactory() {
        @Override
        public Thread newThread(Runnable r) {
            return new Thread(r);
        }

        @Override
        public ForkJoinWorkerThread newThread(ForkJoinPool pool) {
            throw new UnsupportedOperationException();
        }
    };

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
        queue.start(THREADS, 1);
        try {
            queue.offer("commit fails");
            queue.offer("next");
            assertTrue(applied.await(5, TimeUnit.SECONDS), "the item after the failed batch is applied");
        } finally {
            queue.stop();
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> void sneakyThrow(Throwable t) throws E {
        throw (E) t;
    }
}
