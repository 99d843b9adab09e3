package io.roost.identity;

import io.roost.platform.problem.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.Duration;

/**
 * Limits guesses: verification codes per address, password logins per account and per client
 * address. State lives in PostgreSQL so every node sees the same counts. Each call commits on its
 * own (REQUIRES_NEW), so a counted attempt survives the rollback of the request that failed.
 *
 * <p>Codes and accounts use {@link #reserve}: the attempt is counted under the row lock
 * <em>before</em> it is checked, so parallel guesses cannot get past the limit. Client addresses
 * use {@link #guard} + {@link #count}: only failures count there (a busy NAT must not be locked
 * out by its successful logins).
 */
@ApplicationScoped
public class AuthThrottle {

    /** At most {@code limit} failed attempts per {@code window}; then locked for {@code lockFor}. */
    public record Policy(int limit, Duration window, Duration lockFor) {
    }

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    /** Counts one attempt; 429 if the key is locked or this attempt would pass the limit (which locks it). */
    @Transactional(value = Transactional.TxType.REQUIRES_NEW, dontRollbackOn = ProblemException.class)
    public void reserve(String key, Policy policy) {
        State s = lock(key, policy);
        if (s.locked) {
            throw locked(s.lockedForSeconds);
        }
        if (s.attempts + 1 > policy.limit()) {
            setLock(key, policy);
            throw locked(policy.lockFor().toSeconds());
        }
        em.createNativeQuery("UPDATE auth_throttle SET attempts = attempts + 1 WHERE throttle_key = :k")
                .setParameter("k", key).executeUpdate();
    }

    /** A reserved attempt failed: at the limit, lock now (so even a new code cannot be asked for). */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void failed(String key, Policy policy) {
        State s = lock(key, policy);
        if (!s.locked && s.attempts >= policy.limit()) {
            setLock(key, policy);
        }
    }

    /** Counts one failure (no reservation); at the limit the key is locked. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void count(String key, Policy policy) {
        State s = lock(key, policy);
        if (s.locked) {
            return;
        }
        if (s.attempts + 1 >= policy.limit()) {
            setLock(key, policy);
        } else {
            em.createNativeQuery("UPDATE auth_throttle SET attempts = attempts + 1 WHERE throttle_key = :k")
                    .setParameter("k", key).executeUpdate();
        }
    }

    /** 429 if the key is locked now. */
    public void guard(String key) {
        Object locked = em.createNativeQuery("""
                        SELECT ceil(extract(epoch FROM locked_until - now())) FROM auth_throttle
                        WHERE throttle_key = :k AND locked_until > now()""")
                .setParameter("k", key).getResultList().stream().findFirst().orElse(null);
        if (locked != null) {
            throw locked(((Number) locked).longValue());
        }
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void clear(String key) {
        em.createNativeQuery("DELETE FROM auth_throttle WHERE throttle_key = :k").setParameter("k", key).executeUpdate();
    }

    /** Forgets windows that ended and locks that expired (housekeeping). */
    @Transactional
    public int purge(Duration olderThan) {
        return em.createNativeQuery("""
                        DELETE FROM auth_throttle WHERE window_start < now() - make_interval(secs => :s)
                          AND (locked_until IS NULL OR locked_until < now())""")
                .setParameter("s", (double) olderThan.toSeconds()).executeUpdate();
    }

    private record State(int attempts, boolean locked, long lockedForSeconds) {
    }

    /** Locks the key's row (creating it); a past window or an expired lock starts over. */
    private State lock(String key, Policy policy) {
        em.createNativeQuery("INSERT INTO auth_throttle (throttle_key) VALUES (:k) ON CONFLICT DO NOTHING")
                .setParameter("k", key).executeUpdate();
        Object[] row = (Object[]) em.createNativeQuery("""
                        SELECT attempts, ceil(extract(epoch FROM locked_until - now())),
                               window_start < now() - make_interval(secs => :w) OR locked_until <= now()
                        FROM auth_throttle WHERE throttle_key = :k FOR UPDATE""")
                .setParameter("k", key)
                .setParameter("w", (double) policy.window().toSeconds())
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

    private void setLock(String key, Policy policy) {
        em.createNativeQuery("""
                        UPDATE auth_throttle SET attempts = 0, window_start = now(),
                            locked_until = now() + make_interval(secs => :l) WHERE throttle_key = :k""")
                .setParameter("k", key)
                .setParameter("l", (double) policy.lockFor().toSeconds())
                .executeUpdate();
    }

    private static ProblemException locked(long seconds) {
        return ProblemException.tooManyRequests("too-many-attempts",
                "Too many failed attempts; locked for another " + seconds + " s.", seconds);
    }
}
