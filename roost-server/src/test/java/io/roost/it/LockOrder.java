package io.roost.it;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;

/**
 * The check of a deadlock-free lock order: a transaction that waits for one of its locks holds
 * none that comes after it in the order, so another transaction that needs only those goes
 * through. Taken out of order, the waiting one would hold what the other needs, and the two would
 * deadlock once the lock they wait on is free.
 */
public final class LockOrder {

    private LockOrder() {
    }

    /** What the two transactions returned. */
    public record Outcome<A, B>(A first, B second) {
    }

    /**
     * A third transaction locks a row ({@code holdSql}, which returns the holder's
     * {@code pg_backend_pid()}); {@code first} starts and waits for that row; {@code second}, which
     * shares other locks with {@code first} but not the held row, must then finish within 10 s
     * while {@code first} still waits. Then the row is released and {@code first} finishes.
     */
    public static <A, B> Outcome<A, B> secondPassesWhileFirstWaits(DataSource db, String holdSql, List<?> holdParams,
                                                                   Callable<A> first, Callable<B> second) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Connection holder = db.getConnection()) {
            holder.setAutoCommit(false);
            long holderPid = Database.queryLong(holder, holdSql, holdParams.toArray());
            try {
                Future<A> a = pool.submit(first);
                Wait.until("the first transaction waits for the held row", Duration.ofSeconds(10),
                        () -> Database.queryLong(db, Database.BLOCKED_BY, (int) holderPid) == 1);
                Future<B> b = pool.submit(second);
                B secondDone;
                try {
                    secondDone = b.get(10, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    throw new AssertionError("the second transaction waits for a lock that the waiting first one holds", e);
                }
                assertFalse(a.isDone(), "the first transaction still waits for the held row");
                holder.commit();
                return new Outcome<>(a.get(10, TimeUnit.SECONDS), secondDone);
            } finally {
                holder.rollback(); // releases the row if an assertion failed before the commit
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
