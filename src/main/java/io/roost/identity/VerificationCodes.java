package io.roost.identity;

import io.roost.identity.security.PasswordHasher;
import io.roost.platform.problem.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.security.SecureRandom;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

/**
 * Five-digit codes proving control of an address. Stored PBKDF2-hashed (a
 * leaked table does not give live codes away cheaply), one per (address, purpose), expiring, and
 * consumed once. Every check counts against the address in {@link AuthThrottle}: five wrong codes
 * lock it, and a locked address can neither try nor ask for a new code.
 */
@ApplicationScoped
public class VerificationCodes {

    public enum Purpose {
        REGISTER("register", "registration"),
        RESET("reset", "password reset"),
        RECOVER("recover", "account recovery"),
        CHANGE_OLD("change-old", "address change (current address)"),
        CHANGE_NEW("change-new", "address change (new address)");

        private final String wire;
        private final String description;

        Purpose(String wire, String description) {
            this.wire = wire;
            this.description = description;
        }

        public String wire() {
            return wire;
        }

        public String description() {
            return description;
        }
    }

    /** A code was sent; it can be checked until {@code expiresAt}. */
    public record Issued(String address, String purpose, OffsetDateTime expiresAt) {
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    @Inject
    PasswordHasher hasher;

    @Inject
    AuthThrottle throttle;

    @Inject
    IdentitySettings settings;

    @Inject
    CodeDelivery delivery;

    /** Replaces any earlier code for (address, purpose), stores it, and sends it (see {@link CodeDelivery}). */
    @Transactional
    public Issued issue(ContactAddress to, Purpose purpose, Long accountId) {
        delivery.checkAvailable(to.kind());
        throttle.guard(throttleKey(to));
        List<?> recent = em.createNativeQuery("""
                        SELECT ceil(extract(epoch FROM sent_at + make_interval(secs => :i) - now())) FROM verification_code
                        WHERE address = :a AND purpose = :p AND sent_at > now() - make_interval(secs => :i)""")
                .setParameter("a", to.key()).setParameter("p", purpose.wire())
                .setParameter("i", (double) settings.codeResendInterval().toSeconds())
                .getResultList();
        if (!recent.isEmpty()) {
            long wait = ((Number) recent.get(0)).longValue();
            throw ProblemException.tooManyRequests("code-recently-sent",
                    "A code was sent to this address moments ago; ask again in " + wait + " s.", wait);
        }
        String code = String.format("%05d", RANDOM.nextInt(100_000));
        OffsetDateTime expiresAt = OffsetDateTime.now(ZoneOffset.UTC).plus(settings.codeTtl());
        em.createNativeQuery("""
                        INSERT INTO verification_code (address, purpose, account_id, code_hash, sent_at, expires_at)
                        VALUES (:a, :p, :acc, :h, now(), :e)
                        ON CONFLICT (address, purpose) DO UPDATE SET account_id = EXCLUDED.account_id,
                            code_hash = EXCLUDED.code_hash, sent_at = now(), expires_at = EXCLUDED.expires_at""")
                .setParameter("a", to.key()).setParameter("p", purpose.wire())
                .setParameter("acc", accountId).setParameter("h", hasher.hash(code)).setParameter("e", expiresAt)
                .executeUpdate();
        delivery.deliver(to, code, purpose, expiresAt);
        return new Issued(to.value(), purpose.wire(), expiresAt);
    }

    /**
     * Checks and consumes the code in the caller's transaction (so the code is spent only if what
     * it authorizes commits). Returns the account id stored with it, if any. 400
     * {@code invalid-code} for a wrong, expired or missing code; 429 when the address is locked.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public Optional<Long> consume(ContactAddress to, Purpose purpose, String code) {
        if (code == null || !code.matches("[0-9]{5}")) {
            throw ProblemException.badRequest("invalid-code", "A code is five digits.");
        }
        String key = throttleKey(to);
        throttle.reserve(key, settings.codePolicy());
        List<?> rows = em.createNativeQuery("""
                        SELECT code_hash, account_id FROM verification_code
                        WHERE address = :a AND purpose = :p AND expires_at > now() FOR UPDATE""")
                .setParameter("a", to.key()).setParameter("p", purpose.wire())
                .getResultList();
        Object[] row = rows.isEmpty() ? null : (Object[]) rows.get(0);
        // Verify even without a row, so timing does not tell whether a code is pending.
        boolean matches = hasher.verify(code, row == null ? null : (String) row[0]);
        if (!matches) {
            throttle.failed(key, settings.codePolicy());
            throw ProblemException.badRequest("invalid-code",
                    "The code is wrong or expired; after " + settings.codePolicy().limit()
                            + " wrong codes the address is locked for a while.");
        }
        em.createNativeQuery("DELETE FROM verification_code WHERE address = :a AND purpose = :p")
                .setParameter("a", to.key()).setParameter("p", purpose.wire()).executeUpdate();
        throttle.clear(key);
        return Optional.ofNullable(row[1]).map(id -> ((Number) id).longValue());
    }

    @Transactional
    public int purgeExpired() {
        return em.createNativeQuery("DELETE FROM verification_code WHERE expires_at < now()").executeUpdate();
    }

    static String throttleKey(ContactAddress to) {
        return "code:" + to.key();
    }
}
