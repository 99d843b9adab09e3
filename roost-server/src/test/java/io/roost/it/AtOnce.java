package io.roost.it;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Calls made at the same moment, a thread each, as racing clients make them. */
public final class AtOnce {

    private AtOnce() {
    }

    /** Runs every call at once; their results in the calls' order (each within 30 s). */
    public static <T> List<T> run(List<? extends Callable<T>> calls) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(calls.size());
        try {
            List<T> results = new ArrayList<>();
            for (Future<T> result : pool.invokeAll(calls)) {
                results.add(result.get(30, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
