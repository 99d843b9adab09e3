package io.roost.platform.metrics;

import io.micrometer.core.instrument.Timer;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/**
 * The statement time of each store, as the time of its calls (a store call is one statement or one
 * batch of them): where the database time goes, per module, without a label per statement.
 */
@StoreTimed
@Interceptor
@Priority(Interceptor.Priority.LIBRARY_BEFORE)
public class StoreTimer {

    @Inject
    Meters meters;

    /** An interceptor instance serves one store instance, so its timer is found once. */
    private Timer timer;

    @AroundInvoke
    Object time(InvocationContext call) throws Exception {
        Timer t = timer;
        if (t == null) {
            String store = call.getMethod().getDeclaringClass().getSimpleName();
            t = timer = meters.latency("roost.store.call", "Time of a store's calls (its SQL statements), by store", "store", store);
        }
        long start = System.nanoTime();
        try {
            return call.proceed();
        } finally {
            t.record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
    }
}
