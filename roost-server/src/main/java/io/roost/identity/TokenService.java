package io.roost.identity;

import io.roost.identity.store.TokenStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Bearer tokens: 256 random bits, shown to the caller once, stored only as their SHA-256. A
 * lookup is one primary-key probe; a stolen database yields no usable token. A token from a
 * device login is bound to that (deviceType, deviceId); tokens an account issues for itself over
 * the API (service back ends, scripts) are not bound.
 */
@ApplicationScoped
public class TokenService {

    public static final Duration DEFAULT_TTL = Duration.ofDays(30);
    public static final Duration MAX_TTL = Duration.ofDays(365);
    private static final String PREFIX = "rst_";
    private static final SecureRandom RANDOM = new SecureRandom();

    public record IssuedToken(String token, String accountId, OffsetDateTime expiresAt, String deviceType, String deviceId) {
    }

    /** A live token: its account (active), the account's roles, and the device it is bound to, if any. */
    public record Grant(long accountId, Set<String> roles, String deviceType, String deviceId) {

        /** An unbound token fits every device; a bound one only its own. */
        public boolean fits(String type, String id) {
            return deviceType == null || deviceType.equals(type) && deviceId.equals(id);
        }
    }

    @Inject
    TokenStore store;

    @Transactional
    public IssuedToken issue(long accountId, Duration ttl, String description) {
        return issue(accountId, ttl, description, null, null);
    }

    @Transactional
    public IssuedToken issue(long accountId, Duration ttl, String description, String deviceType, String deviceId) {
        byte[] secret = new byte[32];
        RANDOM.nextBytes(secret);
        String token = PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
        OffsetDateTime expiresAt = OffsetDateTime.now(ZoneOffset.UTC).plus(ttl);
        store.insert(sha256(token), accountId, expiresAt, description, deviceType, deviceId);
        return new IssuedToken(token, Long.toString(accountId), expiresAt, deviceType, deviceId);
    }

    /**
     * The account, its roles and the device binding behind a live token: one indexed probe (see
     * {@link TokenStore#live}). Every bearer request and every device login comes through here.
     */
    public Optional<Grant> authenticate(String token) {
        return authenticateAll(List.of(token)).get(0);
    }

    /**
     * {@link #authenticate} for many tokens in one query (device logins come in batches): the
     * grants in the order of {@code presented}, empty where a token is not live.
     */
    public List<Optional<Grant>> authenticateAll(List<String> presented) {
        List<ByteBuffer> hashes = presented.stream().map(t -> wellFormed(t) ? ByteBuffer.wrap(sha256(t)) : null).toList();
        byte[][] probes = hashes.stream().filter(h -> h != null).map(ByteBuffer::array).toArray(byte[][]::new);
        Map<ByteBuffer, Grant> live = probes.length == 0 ? Map.of() : store.live(probes);
        return hashes.stream().map(h -> h == null ? Optional.<Grant>empty() : Optional.ofNullable(live.get(h))).toList();
    }

    /** Pushes a live token's expiry out (a device logging in again with its saved token). */
    @Transactional
    public Optional<OffsetDateTime> renew(String token, Duration ttl) {
        if (!wellFormed(token)) {
            return Optional.empty();
        }
        OffsetDateTime expiresAt = OffsetDateTime.now(ZoneOffset.UTC).plus(ttl);
        return store.extend(sha256(token), expiresAt) ? Optional.of(expiresAt) : Optional.empty();
    }

    @Transactional
    public boolean revoke(String token) {
        if (!wellFormed(token)) {
            return false;
        }
        return store.revoke(sha256(token));
    }

    @Transactional
    public int revokeAll(long accountId) {
        return store.revokeAll(accountId);
    }

    private static boolean wellFormed(String token) {
        return token != null && token.startsWith(PREFIX) && token.length() <= 100;
    }

    static byte[] sha256(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
