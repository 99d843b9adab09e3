package io.roost.admin;

import io.roost.platform.ids.IdGenerator;
import io.roost.platform.store.SqlTimes;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.function.Supplier;

/** The admin audit table: who did what to what, when, and how it ended. */
@ApplicationScoped
public class AuditTrail {

    public record Entry(long id, OffsetDateTime at, long actorId, String action, String targetType, String targetId,
                        String detail, String outcome) {
    }

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    @Inject
    IdGenerator ids;

    /** Runs an action and records it as {@code ok} in the action's own transaction: both happen or neither. */
    @Transactional
    public <T> T performAndRecord(long actor, String action, String targetType, String targetId, String detail, Supplier<T> work) {
        T result = work.get();
        insert(actor, action, targetType, targetId, detail, "ok");
        return result;
    }

    /** Records a refused or failed action after its transaction rolled back. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void recordAlone(long actor, String action, String targetType, String targetId, String detail, String outcome) {
        insert(actor, action, targetType, targetId, detail, outcome);
    }

    /** Newest first, before {@code beforeId}; optionally one target type and id. */
    public List<Entry> entries(String targetType, String targetId, Long beforeId, int limit) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT id, at, actor_id, action, target_type, target_id, detail, outcome FROM admin_audit
                        WHERE id < ?1 AND (CAST(?2 AS varchar) IS NULL OR target_type = ?2)
                          AND (CAST(?3 AS varchar) IS NULL OR target_id = ?3)
                        ORDER BY id DESC LIMIT ?4""")
                .setParameter(1, beforeId == null ? Long.MAX_VALUE : beforeId).setParameter(2, targetType)
                .setParameter(3, targetId).setParameter(4, limit).getResultList();
        return rows.stream().map(r -> new Entry(((Number) r[0]).longValue(), SqlTimes.of(r[1]), ((Number) r[2]).longValue(),
                (String) r[3], (String) r[4], (String) r[5], (String) r[6], (String) r[7])).toList();
    }

    private void insert(long actor, String action, String targetType, String targetId, String detail, String outcome) {
        em.createNativeQuery("""
                        INSERT INTO admin_audit (id, actor_id, action, target_type, target_id, detail, outcome)
                        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)""")
                .setParameter(1, ids.nextId()).setParameter(2, actor).setParameter(3, action).setParameter(4, targetType)
                .setParameter(5, targetId).setParameter(6, detail == null || detail.length() <= 2000 ? detail : detail.substring(0, 2000))
                .setParameter(7, outcome).executeUpdate();
    }
}
