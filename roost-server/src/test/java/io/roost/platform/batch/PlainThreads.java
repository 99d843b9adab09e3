package io.roost.platform.batch;

import jakarta.enterprise.concurrent.ManagedThreadFactory;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;

/** Plain threads for a unit test's group commit: its writers only need a thread factory. */
public final class PlainThreads {

    public static final ManagedThreadFactory FACTORY = new ManagedThreadFactory() {
        @Override
        public Thread newThread(Runnable r) {
            return new Thread(r);
        }

        @Override
        public ForkJoinWorkerThread newThread(ForkJoinPool pool) {
            throw new UnsupportedOperationException();
        }
    };

    private PlainThreads() {
    }
}
