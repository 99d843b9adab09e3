package io.roost.client.device;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/** The default scheduler of every device in the process: one daemon thread; its tasks only hand work on. */
final class SharedTimer {

    private static final ScheduledExecutorService TIMER = create();

    private SharedTimer() {
    }

    static ScheduledExecutorService get() {
        return TIMER;
    }

    private static ScheduledExecutorService create() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "roost-device-timer");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }
}
