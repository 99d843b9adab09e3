package io.roost.admin.store;

import io.roost.platform.metrics.StoreTimed;
import io.roost.admin.AuditTrail;
import io.roost.platform.ids.IdGenerator;
import io.roost.platform.store.SqlTimes;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.List;

/** The admin_audit rows: one per operator action, written in the transaction AuditTrail gives it. */
@StoreTimed
@Stateless
public class AuditStore {

    /** The detail column's length: a longer detail is cut. */
    static final int DETAIL_MAX = 2000;

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    @Inject
    IdGenerator ids;

    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public void insert(long actor, String action, String targetType, String targetId, String detail, String outcome) {
        em.createNativeQuery("""
                        INSERT INTO admin_audit (id, actor_id, action, target_type, target_id, detail, outcome)
                        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)""")
                .setParameter(1, ids.nextId()).setParameter(2, actor).setParameter(3, action).setParameter(4, targetType)
                .setParameter(5, targetId)
                .setParameter(6, detail == null || detail.length() <= DETAIL_MAX ? detail : detail.substring(0, DETAIL_MAX))
                .setParameter(7, outcome).executeUpdate();
    }

    /** Newest first, before {@code beforeId}; optionally one target type and id. Never begins a transaction. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public List<AuditTrail.Entry> entries(String targetType, String targetId, Long beforeId, int limit) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT id, at, actor_id, action, target_type, target_id, detail, outcome FROM admin_audit
                        WHERE id < ?1 AND (CAST(?2 AS varchar) IS NULL OR target_type = ?2)
                          AND (CAST(?3 AS varchar) IS NULL OR target_id = ?3)
                        ORDER BY id DESC LIMIT ?4""")
                .setParameter(1, beforeId == null ? Long.MAX_VALUE : beforeId).setParameter(2, targetType)
                .setParameter(3, targetId).setParameter(4, limit).getResultList();
        return rows.stream().map(r -> new AuditTrail.Entry(((Number) r[0]).longValue(), SqlTimes.of(r[1]),
                ((Number) r[2]).longValue(), (String) r[3], (String) r[4], (String) r[5], (String) r[6], (String) r[7]))
                .toList();
    }
}
