package io.roost.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * {@link DeadlockLog}, which the concurrency tests trust to say "no deadlock", finds one that is
 * made on purpose: two transactions that each hold an advisory lock and then ask for the other's.
 */
@Isolated("makes a deadlock on purpose, which the other classes' deadlock checks would see")
class DeadlockLogIT {

    @Test
    void aDeadlockMadeOnPurposeIsFoundWithWhatExplainsIt() throws Exception {
        DeadlockLog log = DeadlockLog.watch();
        long a = new Random().nextLong() / 2; // keys no other test takes
        long b = a + 1;
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Connection one = Database.connect(); Connection two = Database.connect()) {
            one.setAutoCommit(false);
            two.setAutoCommit(false);
            lock(one, a);
            lock(two, b);
            List<Future<?>> crossed = List.of(pool.submit(() -> lockOrGiveUp(one, b)), pool.submit(() -> lockOrGiveUp(two, a)));
            List<String> failed = new ArrayList<>();
            for (Future<?> f : crossed) {
                try {
                    f.get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    failed.add(((SQLException) e.getCause()).getSQLState());
                }
            }
            assertEquals(List.of("40P01"), failed, "PostgreSQL broke the deadlock by failing one of the two");
            one.rollback();
            two.rollback();
        } finally {
            pool.shutdownNow();
        }
        List<String> found = log.detected();
        assertEquals(1, found.size(), found.toString());
        assertTrue(found.get(0).contains("advisory lock"), "the report has the DETAIL on the locks: " + found.get(0));
    }

    private static void lock(Connection c, long key) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
            ps.setLong(1, key);
            ps.execute();
        }
    }

    /** The one PostgreSQL chooses gives up at once, so that the other gets its lock. */
    private static Void lockOrGiveUp(Connection c, long key) throws SQLException {
        try {
            lock(c, key);
            return null;
        } catch (SQLException e) {
            c.rollback();
            throw e;
        }
    }
}
