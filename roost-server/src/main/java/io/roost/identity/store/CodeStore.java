package io.roost.identity.store;

import io.roost.platform.metrics.StoreTimed;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The verification_code rows: one hashed code per (address, purpose). No transaction of its own:
 * every statement runs in its caller's.
 */
@StoreTimed
@ApplicationScoped
public class CodeStore {

    /** A code that has not expired: its hash and the account it was issued for, if any. */
    public record Pending(String codeHash, Long accountId) {
    }

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    /** The seconds until a new code may be sent, if one was sent to (address, purpose) less than {@code interval} ago. */
    public OptionalLong resendWait(String address, String purpose, Duration interval) {
        List<?> recent = em.createNativeQuery("""
                        SELECT ceil(extract(epoch FROM sent_at + make_interval(secs => :i) - now())) FROM verification_code
                        WHERE address = :a AND purpose = :p AND sent_at > now() - make_interval(secs => :i)""")
                .setParameter("a", address).setParameter("p", purpose)
                .setParameter("i", (double) interval.toSeconds())
                .getResultList();
        return recent.isEmpty() ? OptionalLong.empty() : OptionalLong.of(((Number) recent.get(0)).longValue());
    }

    /** Stores a code for (address, purpose), replacing any earlier one; sent now. */
    public void replace(String address, String purpose, Long accountId, String codeHash, OffsetDateTime expiresAt) {
        em.createNativeQuery("""
                        INSERT INTO verification_code (address, purpose, account_id, code_hash, sent_at, expires_at)
                        VALUES (:a, :p, :acc, :h, now(), :e)
                        ON CONFLICT (address, purpose) DO UPDATE SET account_id = EXCLUDED.account_id,
                            code_hash = EXCLUDED.code_hash, sent_at = now(), expires_at = EXCLUDED.expires_at""")
                .setParameter("a", address).setParameter("p", purpose)
                .setParameter("acc", accountId).setParameter("h", codeHash).setParameter("e", expiresAt)
                .executeUpdate();
    }

    /** The unexpired code of (address, purpose), its row locked until the caller's transaction ends. */
    public Optional<Pending> lockPending(String address, String purpose) {
        List<?> rows = em.createNativeQuery("""
                        SELECT code_hash, account_id FROM verification_code
                        WHERE address = :a AND purpose = :p AND expires_at > now() FOR UPDATE""")
                .setParameter("a", address).setParameter("p", purpose)
                .getResultList();
        if (rows.isEmpty()) {
            return Optional.empty();
        }
        Object[] row = (Object[]) rows.get(0);
        return Optional.of(new Pending((String) row[0], row[1] == null ? null : ((Number) row[1]).longValue()));
    }

    public void delete(String address, String purpose) {
        em.createNativeQuery("DELETE FROM verification_code WHERE address = :a AND purpose = :p")
                .setParameter("a", address).setParameter("p", purpose).executeUpdate();
    }

    public int purgeExpired() {
        return em.createNativeQuery("DELETE FROM verification_code WHERE expires_at < now()").executeUpdate();
    }
}
