package io.roost.identity;

import io.roost.identity.store.ThrottleStore;
import io.roost.identity.store.ThrottleStore.State;
import io.roost.platform.problem.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.util.OptionalLong;

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

    @Inject
    ThrottleStore store;

    /** Counts one attempt; 429 if the key is locked or this attempt would pass the limit (which locks it). */
    @Transactional(value = Transactional.TxType.REQUIRES_NEW, dontRollbackOn = ProblemException.class)
    public void reserve(String key, Policy policy) {
        State s = store.lock(key, policy.window());
        if (s.locked()) {
            throw locked(s.lockedForSeconds());
        }
        if (s.attempts() + 1 > policy.limit()) {
            store.lockFor(key, policy.lockFor());
            throw locked(policy.lockFor().toSeconds());
        }
        store.countAttempt(key);
    }

    /** A reserved attempt failed: at the limit, lock now (so even a new code cannot be asked for). */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void failed(String key, Policy policy) {
        State s = store.lock(key, policy.window());
        if (!s.locked() && s.attempts() >= policy.limit()) {
            store.lockFor(key, policy.lockFor());
        }
    }

    /** Counts one failure (no reservation); at the limit the key is locked. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void count(String key, Policy policy) {
        State s = store.lock(key, policy.window());
        if (s.locked()) {
            return;
        }
        if (s.attempts() + 1 >= policy.limit()) {
            store.lockFor(key, policy.lockFor());
        } else {
            store.countAttempt(key);
        }
    }

    /** 429 if the key is locked now. */
    public void guard(String key) {
        OptionalLong locked = store.lockedFor(key);
        if (locked.isPresent()) {
            throw locked(locked.getAsLong());
        }
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void clear(String key) {
        store.delete(key);
    }

    /** Forgets windows that ended and locks that expired (housekeeping). */
    @Transactional
    public int purge(Duration olderThan) {
        return store.purge(olderThan);
    }

    private static ProblemException locked(long seconds) {
        return ProblemException.tooManyRequests("too-many-attempts",
                "Too many failed attempts; locked for another " + seconds + " s.", seconds);
    }
}
