package io.roost.identity;

import io.roost.identity.store.Account;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * Bearer tokens: 256 random bits, shown to the caller once, stored only as their SHA-256. A
 * lookup is one primary-key probe; a stolen database yields no usable token.
 */
@ApplicationScoped
public class TokenService {

    public static final Duration DEFAULT_TTL = Duration.ofDays(30);
    public static final Duration MAX_TTL = Duration.ofDays(365);
    private static final String PREFIX = "rst_";
    private static final SecureRandom RANDOM = new SecureRandom();

    public record IssuedToken(String token, String accountId, OffsetDateTime expiresAt) {
    }

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    @Transactional
    public IssuedToken issue(long accountId, Duration ttl, String description) {
        byte[] secret = new byte[32];
        RANDOM.nextBytes(secret);
        String token = PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
        OffsetDateTime expiresAt = OffsetDateTime.now(ZoneOffset.UTC).plus(ttl);
        em.createNativeQuery("""
                        INSERT INTO access_token (token_hash, account_id, expires_at, description)
                        VALUES (?1, ?2, ?3, ?4)""")
                .setParameter(1, sha256(token))
                .setParameter(2, accountId)
                .setParameter(3, expiresAt)
                .setParameter(4, description)
                .executeUpdate();
        return new IssuedToken(token, Long.toString(accountId), expiresAt);
    }

    /** The active account behind a live token, if any. */
    public Optional<Account> accountFor(String token) {
        if (token == null || !token.startsWith(PREFIX) || token.length() > 100) {
            return Optional.empty();
        }
        List<Account> found = em.createNativeQuery("""
                        SELECT a.* FROM access_token t JOIN account a ON a.id = t.account_id
                        WHERE t.token_hash = ?1 AND t.revoked_at IS NULL AND t.expires_at > now()
                          AND a.status = 'ACTIVE'""", Account.class)
                .setParameter(1, sha256(token))
                .getResultList();
        return found.stream().findFirst();
    }

    @Transactional
    public boolean revoke(String token) {
        return em.createNativeQuery("UPDATE access_token SET revoked_at = now() WHERE token_hash = ?1 AND revoked_at IS NULL")
                .setParameter(1, sha256(token))
                .executeUpdate() == 1;
    }

    @Transactional
    public int revokeAll(long accountId) {
        return em.createNativeQuery("UPDATE access_token SET revoked_at = now() WHERE account_id = ?1 AND revoked_at IS NULL")
                .setParameter(1, accountId)
                .executeUpdate();
    }

    static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
