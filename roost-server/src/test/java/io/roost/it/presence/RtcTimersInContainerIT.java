package io.roost.it.presence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.InContainer;
import io.roost.presence.rtc.RtcHousekeeping;
import jakarta.ejb.EJB;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.UserTransaction;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Delayed work after a restart: what became due while no node ran is caught up by the next tick,
 * because the deadlines live in the rows, not in timers in memory.
 */
@InContainer
class RtcTimersInContainerIT {

    @EJB
    RtcHousekeeping housekeeping;

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    @Inject
    UserTransaction tx;

    private void sql(String statement, Object... params) throws Exception {
        tx.begin();
        var q = em.createNativeQuery(statement);
        for (int i = 0; i < params.length; i++) {
            q.setParameter(i + 1, params[i]);
        }
        q.executeUpdate();
        tx.commit();
    }

    private long count(String statement, Object... params) {
        var q = em.createNativeQuery(statement);
        for (int i = 0; i < params.length; i++) {
            q.setParameter(i + 1, params[i]);
        }
        return ((Number) q.getSingleResult()).longValue();
    }

    @Test
    void overdueTombstonesAreRemovedByTheNextSweepAndNothingElse() throws Exception {
        String channel = "sweep-" + UUID.randomUUID();
        sql("INSERT INTO rtc_channel (channel_name) VALUES (?1)", channel);
        String insert = """
                INSERT INTO rtc_member (channel_name, uid, role, online, last_client_seq, last_event_type, last_ts, updated_at)
                VALUES (?1, ?2, 2, ?3, 5, ?4, 1, now() - make_interval(secs => ?5))""";
        sql(insert, channel, 1L, false, 106, 3600.0);   // left an hour ago, while "no node ran"
        sql(insert, channel, 2L, false, 106, 0.0);      // just left: still a tombstone
        sql(insert, channel, 3L, true, 105, 3600.0);    // online for an hour: never swept
        // A sweep of the 1 s timer may be running (then ours returns at once): wait for the next one,
        // well within uid 2's 20 s retention.
        long deadline = System.currentTimeMillis() + 5_000;
        List<Long> uids;
        while (true) {
            housekeeping.sweep();
            uids = ((List<?>) em.createNativeQuery("SELECT uid FROM rtc_member WHERE channel_name = ?1 ORDER BY uid")
                    .setParameter(1, channel).getResultList()).stream().map(u -> ((Number) u).longValue()).toList();
            if (!uids.contains(1L) || System.currentTimeMillis() > deadline) {
                break;
            }
            Thread.sleep(100);
        }
        assertEquals(List.of(2L, 3L), uids);
        assertEquals(1, count("SELECT coalesce(sum(audience), 0) FROM rtc_channel_count WHERE channel_name = ?1", channel),
                "the trigger kept the count equal to the online rows");
    }

    @Test
    void aKickWhoseLeaseExpiredIsPickedUpAgain() throws Exception {
        String channel = "lease-" + UUID.randomUUID();
        // A node took this kick (attempts 3) and died: its lease ran out a minute ago.
        sql("""
                INSERT INTO rtc_channel_kick (id, channel_name, uid, client_seq, status, due_at, attempts)
                VALUES (?1, ?2, 9, 1, 'PENDING', now() - interval '1 minute', 3)""",
                System.nanoTime(), channel);
        long deadline = System.currentTimeMillis() + 20_000;
        while (System.currentTimeMillis() < deadline
                && count("SELECT attempts FROM rtc_channel_kick WHERE channel_name = ?1", channel) == 3) {
            Thread.sleep(200);
        }
        assertTrue(count("SELECT attempts FROM rtc_channel_kick WHERE channel_name = ?1", channel) >= 4,
                "the kicker's next tick took the expired lease");
    }
}
