package io.roost.it;

import java.time.Duration;

/** Waiting for what the server does in the background (timers, consumers, sweeps). */
public final class Wait {

    /** A condition to wait for; it may call the server, and so throw. */
    @FunctionalInterface
    public interface Condition {
        boolean holds() throws Exception;
    }

    private Wait() {
    }

    /** Returns once the condition holds, checking every 100 ms; fails naming {@code what} if it does not within the time. */
    public static void until(String what, Duration within, Condition condition) throws Exception {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + within + ": " + what);
            }
            Thread.sleep(100);
        }
    }

    /** Sleeps; an interrupt ends it early and stays set, for the caller's loop to see. */
    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
