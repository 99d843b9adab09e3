package io.roost.identity;

import io.roost.identity.store.Account;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;

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

    /** A token is live if it is neither revoked nor expired and its account is active. */
    private static final String LIVE_TOKEN = """
            FROM access_token t JOIN account a ON a.id = t.account_id
            WHERE t.token_hash = ANY(?) AND t.revoked_at IS NULL AND t.expires_at > now() AND a.status = 'ACTIVE'""";

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    @PersistenceContext(unitName = "roost")
    EntityManager em;

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
        em.createNativeQuery("""
                        INSERT INTO access_token (token_hash, account_id, expires_at, description, device_type, device_id)
                        VALUES (:h, :a, :e, :d, :dt, :di)""")
                .setParameter("h", sha256(token))
                .setParameter("a", accountId)
                .setParameter("e", expiresAt)
                .setParameter("d", description)
                .setParameter("dt", deviceType)
                .setParameter("di", deviceId)
                .executeUpdate();
        return new IssuedToken(token, Long.toString(accountId), expiresAt, deviceType, deviceId);
    }

    /**
     * The account, its roles and the device binding behind a live token: one indexed probe over
     * plain JDBC, no entity. Every bearer request and every device login comes through here; an
     * entity query cost a quarter of WildFly's CPU under the live-room benchmark (JFR).
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
        Map<ByteBuffer, Grant> live = new HashMap<>();
        if (probes.length > 0) {
            try (Connection c = dataSource.getConnection();
                 PreparedStatement ps = c.prepareStatement("SELECT t.token_hash, t.account_id, a.roles, t.device_type, t.device_id "
                         + LIVE_TOKEN)) {
                ps.setArray(1, c.createArrayOf("bytea", probes));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        live.put(ByteBuffer.wrap(rs.getBytes(1)), new Grant(rs.getLong(2), Account.roles(rs.getString(3)),
                                rs.getString(4), rs.getString(5)));
                    }
                }
            } catch (SQLException e) {
                throw new IllegalStateException("token lookup failed: " + e.getMessage(), e);
            }
        }
        return hashes.stream().map(h -> h == null ? Optional.<Grant>empty() : Optional.ofNullable(live.get(h))).toList();
    }

    /** Pushes a live token's expiry out (a device logging in again with its saved token). */
    @Transactional
    public Optional<OffsetDateTime> renew(String token, Duration ttl) {
        if (!wellFormed(token)) {
            return Optional.empty();
        }
        OffsetDateTime expiresAt = OffsetDateTime.now(ZoneOffset.UTC).plus(ttl);
        int n = em.createNativeQuery("""
                        UPDATE access_token SET expires_at = GREATEST(expires_at, :e)
                        WHERE token_hash = :h AND revoked_at IS NULL AND expires_at > now()""")
                .setParameter("e", expiresAt).setParameter("h", sha256(token)).executeUpdate();
        return n == 1 ? Optional.of(expiresAt) : Optional.empty();
    }

    @Transactional
    public boolean revoke(String token) {
        if (!wellFormed(token)) {
            return false;
        }
        return em.createNativeQuery("UPDATE access_token SET revoked_at = now() WHERE token_hash = :h AND revoked_at IS NULL")
                .setParameter("h", sha256(token))
                .executeUpdate() == 1;
    }

    @Transactional
    public int revokeAll(long accountId) {
        return em.createNativeQuery("UPDATE access_token SET revoked_at = now() WHERE account_id = :a AND revoked_at IS NULL")
                .setParameter("a", accountId)
                .executeUpdate();
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
