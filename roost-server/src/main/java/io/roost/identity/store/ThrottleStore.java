package io.roost.identity.store;

import io.roost.platform.metrics.StoreTimed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * The auth_throttle rows: failed attempts per key in a window, and a lock. No transaction of its
 * own: every statement runs in its caller's.
 */
@StoreTimed
@ApplicationScoped
public class ThrottleStore {

    /** A key's row as {@link #lock} found it: its attempts in the current window, or the seconds it stays locked. */
    public record State(int attempts, boolean locked, long lockedForSeconds) {
    }

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    /** Locks the key's row (creating it); a window older than {@code window} or an expired lock starts over. */
    public State lock(String key, Duration window) {
        em.createNativeQuery("INSERT INTO auth_throttle (throttle_key) VALUES (:k) ON CONFLICT DO NOTHING")
                .setParameter("k", key).executeUpdate();
        Object[] row = (Object[]) em.createNativeQuery("""
                        SELECT attempts, ceil(extract(epoch FROM locked_until - now())),
                               window_start < now() - make_interval(secs => :w) OR locked_until <= now()
                        FROM auth_throttle WHERE throttle_key = :k FOR UPDATE""")
                .setParameter("k", key)
                .setParameter("w", (double) window.toSeconds())
                .getSingleResult();
        Number lockedFor = (Number) row[1];
        if (lockedFor != null && lockedFor.longValue() > 0) {
            return new State(0, true, lockedFor.longValue());
        }
        if (Boolean.TRUE.equals(row[2])) {
            em.createNativeQuery("""
                            UPDATE auth_throttle SET attempts = 0, window_start = now(), locked_until = NULL
                            WHERE throttle_key = :k""")
                    .setParameter("k", key).executeUpdate();
            return new State(0, false, 0);
        }
        return new State(((Number) row[0]).intValue(), false, 0);
    }

    public void countAttempt(String key) {
        em.createNativeQuery("UPDATE auth_throttle SET attempts = attempts + 1 WHERE throttle_key = :k")
                .setParameter("k", key).executeUpdate();
    }

    /** Locks the key for {@code lockFor}; its window starts over. */
    public void lockFor(String key, Duration lockFor) {
        em.createNativeQuery("""
                        UPDATE auth_throttle SET attempts = 0, window_start = now(),
                            locked_until = now() + make_interval(secs => :l) WHERE throttle_key = :k""")
                .setParameter("k", key)
                .setParameter("l", (double) lockFor.toSeconds())
                .executeUpdate();
    }

    /** The seconds the key stays locked, if it is locked now. */
    public OptionalLong lockedFor(String key) {
        Object locked = em.createNativeQuery("""
                        SELECT ceil(extract(epoch FROM locked_until - now())) FROM auth_throttle
                        WHERE throttle_key = :k AND locked_until > now()""")
                .setParameter("k", key).getResultList().stream().findFirst().orElse(null);
        return locked == null ? OptionalLong.empty() : OptionalLong.of(((Number) locked).longValue());
    }

    public void delete(String key) {
        em.createNativeQuery("DELETE FROM auth_throttle WHERE throttle_key = :k").setParameter("k", key).executeUpdate();
    }

    /** Deletes the rows whose window started more than {@code olderThan} ago and whose lock (if any) is over. */
    public int purge(Duration olderThan) {
        return em.createNativeQuery("""
                        DELETE FROM auth_throttle WHERE window_start < now() - make_interval(secs => :s)
                          AND (locked_until IS NULL OR locked_until < now())""")
                .setParameter("s", (double) olderThan.toSeconds()).executeUpdate();
    }
}
