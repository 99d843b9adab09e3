package io.roost.admin;

import io.roost.platform.problem.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.function.Supplier;

/**
 * Every operator action goes through here, so every one is audited: on success in the action's
 * own transaction; refused (a problem the caller caused) or failed, in a transaction of its own
 * after the action's rolled back.
 */
@ApplicationScoped
public class AdminActions {

    @Inject
    AuditTrail trail;

    public <T> T run(long actor, String action, String targetType, String targetId, String detail, Supplier<T> work) {
        try {
            return trail.performAndRecord(actor, action, targetType, targetId, detail, work);
        } catch (ProblemException e) {
            trail.recordAlone(actor, action, targetType, targetId, e.type() + ": " + e.getMessage(), e.status() < 500 ? "refused" : "failed");
            throw e;
        } catch (RuntimeException e) {
            trail.recordAlone(actor, action, targetType, targetId, e.toString(), "failed");
            throw e;
        }
    }
}
