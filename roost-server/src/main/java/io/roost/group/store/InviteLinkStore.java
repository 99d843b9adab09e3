package io.roost.group.store;

import io.roost.platform.metrics.StoreTimed;
import io.roost.group.InviteLink;
import io.roost.platform.store.SqlTimes;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;

/**
 * Invite links (group_invite_link), found by the SHA-256 of their token. No transaction of its
 * own: its callers lock the group row first, as every change of a group does, so a revoke and a
 * join by the same link run one after the other.
 */
@StoreTimed
@ApplicationScoped
public class InviteLinkStore {

    private static final String COLUMNS = "id, group_id, created_by, created_at, expires_at, revoked_at";
    /** A link that still admits: not revoked, not expired (by the database's clock). */
    private static final String LIVE = " AND revoked_at IS NULL AND expires_at > now()";

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    public InviteLink insert(long id, long groupId, byte[] tokenHash, long createdBy, OffsetDateTime expiresAt) {
        em.createNativeQuery("""
                        INSERT INTO group_invite_link (id, group_id, token_hash, created_by, expires_at)
                        VALUES (:id, :g, :h, :c, :e)""")
                .setParameter("id", id).setParameter("g", groupId).setParameter("h", tokenHash).setParameter("c", createdBy)
                .setParameter("e", expiresAt).executeUpdate();
        return first(em.createNativeQuery("SELECT " + COLUMNS + " FROM group_invite_link WHERE id = :id")
                .setParameter("id", id).getResultList()).orElseThrow();
    }

    /** The live link whose token has this hash. */
    public Optional<InviteLink> liveByHash(byte[] tokenHash) {
        return first(em.createNativeQuery("SELECT " + COLUMNS + " FROM group_invite_link WHERE token_hash = :h" + LIVE)
                .setParameter("h", tokenHash).getResultList());
    }

    /** Whether the link is still live (asked again under the group's lock). */
    public boolean live(long id) {
        return !em.createNativeQuery("SELECT 1 FROM group_invite_link WHERE id = :id" + LIVE)
                .setParameter("id", id).getResultList().isEmpty();
    }

    /** Revokes the group's link; false if it has no such link or it was revoked already. */
    public boolean revoke(long id, long groupId, long by) {
        return em.createNativeQuery("""
                        UPDATE group_invite_link SET revoked_at = now(), revoked_by = :b
                        WHERE id = :id AND group_id = :g AND revoked_at IS NULL""")
                .setParameter("b", by).setParameter("id", id).setParameter("g", groupId).executeUpdate() == 1;
    }

    /** Whether the group has this link, revoked or not. */
    public boolean exists(long id, long groupId) {
        return !em.createNativeQuery("SELECT 1 FROM group_invite_link WHERE id = :id AND group_id = :g")
                .setParameter("id", id).setParameter("g", groupId).getResultList().isEmpty();
    }

    private static Optional<InviteLink> first(List<?> rows) {
        return rows.stream().map(o -> {
            Object[] r = (Object[]) o;
            return new InviteLink(((Number) r[0]).longValue(), ((Number) r[1]).longValue(), ((Number) r[2]).longValue(),
                    SqlTimes.of(r[3]), SqlTimes.of(r[4]), SqlTimes.of(r[5]));
        }).findFirst();
    }
}
