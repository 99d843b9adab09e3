package io.roost.identity;

import io.roost.identity.security.PasswordHasher;
import io.roost.identity.store.CodeStore;
import io.roost.platform.problem.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.security.SecureRandom;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.OptionalLong;

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

    @Inject
    CodeStore store;

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
        OptionalLong recent = store.resendWait(to.key(), purpose.wire(), settings.codeResendInterval());
        if (recent.isPresent()) {
            long wait = recent.getAsLong();
            throw ProblemException.tooManyRequests("code-recently-sent",
                    "A code was sent to this address moments ago; ask again in " + wait + " s.", wait);
        }
        String code = String.format("%05d", RANDOM.nextInt(100_000));
        OffsetDateTime expiresAt = OffsetDateTime.now(ZoneOffset.UTC).plus(settings.codeTtl());
        store.replace(to.key(), purpose.wire(), accountId, hasher.hash(code), expiresAt);
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
        Optional<CodeStore.Pending> pending = store.lockPending(to.key(), purpose.wire());
        // Verify even without a row, so timing does not tell whether a code is pending.
        boolean matches = hasher.verify(code, pending.map(CodeStore.Pending::codeHash).orElse(null));
        if (!matches) {
            throttle.failed(key, settings.codePolicy());
            throw ProblemException.badRequest("invalid-code",
                    "The code is wrong or expired; after " + settings.codePolicy().limit()
                            + " wrong codes the address is locked for a while.");
        }
        store.delete(to.key(), purpose.wire());
        throttle.clear(key);
        return Optional.ofNullable(pending.get().accountId());
    }

    @Transactional
    public int purgeExpired() {
        return store.purgeExpired();
    }

    static String throttleKey(ContactAddress to) {
        return "code:" + to.key();
    }
}
