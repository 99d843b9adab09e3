package io.roost.admin;

import io.roost.admin.store.AuditStore;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
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

    @EJB
    AuditStore store;

    /** Runs an action and records it as {@code ok} in the action's own transaction: both happen or neither. */
    @Transactional
    public <T> T performAndRecord(long actor, String action, String targetType, String targetId, String detail, Supplier<T> work) {
        T result = work.get();
        store.insert(actor, action, targetType, targetId, detail, "ok");
        return result;
    }

    /** Records a refused or failed action after its transaction rolled back. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void recordAlone(long actor, String action, String targetType, String targetId, String detail, String outcome) {
        store.insert(actor, action, targetType, targetId, detail, outcome);
    }

    /** Newest first, before {@code beforeId}; optionally one target type and id. */
    public List<Entry> entries(String targetType, String targetId, Long beforeId, int limit) {
        return store.entries(targetType, targetId, beforeId, limit);
    }
}
