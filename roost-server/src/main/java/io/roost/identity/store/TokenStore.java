package io.roost.identity.store;

import io.roost.platform.metrics.StoreTimed;
import io.roost.identity.TokenService.Grant;
import io.roost.platform.store.Jdbc;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.nio.ByteBuffer;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * The access_token rows, keyed by the token's SHA-256. No transaction of its own: every statement
 * runs in its caller's.
 */
@StoreTimed
@ApplicationScoped
public class TokenStore {

    /** A token is live if it is neither revoked nor expired and its account is active. */
    private static final String LIVE_TOKENS = """
            SELECT t.token_hash, t.account_id, a.roles, t.device_type, t.device_id
            FROM access_token t JOIN account a ON a.id = t.account_id
            WHERE t.token_hash = ANY(?) AND t.revoked_at IS NULL AND t.expires_at > now() AND a.status = 'ACTIVE'""";

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    public void insert(byte[] hash, long accountId, OffsetDateTime expiresAt, String description, String deviceType,
                       String deviceId) {
        em.createNativeQuery("""
                        INSERT INTO access_token (token_hash, account_id, expires_at, description, device_type, device_id)
                        VALUES (:h, :a, :e, :d, :dt, :di)""")
                .setParameter("h", hash)
                .setParameter("a", accountId)
                .setParameter("e", expiresAt)
                .setParameter("d", description)
                .setParameter("dt", deviceType)
                .setParameter("di", deviceId)
                .executeUpdate();
    }

    /**
     * The grants of those of {@code hashes} that are live, by hash: one indexed probe over plain
     * JDBC, no entity. Every bearer request and every device login comes through here; an entity
     * query cost a quarter of WildFly's CPU under the live-room benchmark (JFR).
     */
    public Map<ByteBuffer, Grant> live(byte[][] hashes) {
        return Jdbc.query(dataSource, LIVE_TOKENS, rs -> Map.entry(ByteBuffer.wrap(rs.getBytes(1)),
                        new Grant(rs.getLong(2), Account.roles(rs.getString(3)), rs.getString(4), rs.getString(5))),
                (Object) hashes).stream().collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    /** Pushes a live token's expiry out to {@code expiresAt} (never in); false if the token is not live. */
    public boolean extend(byte[] hash, OffsetDateTime expiresAt) {
        return em.createNativeQuery("""
                        UPDATE access_token SET expires_at = GREATEST(expires_at, :e)
                        WHERE token_hash = :h AND revoked_at IS NULL AND expires_at > now()""")
                .setParameter("e", expiresAt).setParameter("h", hash).executeUpdate() == 1;
    }

    public boolean revoke(byte[] hash) {
        return em.createNativeQuery("UPDATE access_token SET revoked_at = now() WHERE token_hash = :h AND revoked_at IS NULL")
                .setParameter("h", hash)
                .executeUpdate() == 1;
    }

    public int revokeAll(long accountId) {
        return em.createNativeQuery("UPDATE access_token SET revoked_at = now() WHERE account_id = :a AND revoked_at IS NULL")
                .setParameter("a", accountId)
                .executeUpdate();
    }
}
