package io.roost.platform.store;

import io.roost.platform.metrics.StoreTimed;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import javax.sql.DataSource;

/** Transaction-scoped PostgreSQL advisory locks that stand for cluster-wide timer tasks. */
@StoreTimed
@Stateless
@TransactionAttribute(TransactionAttributeType.MANDATORY) // the lock lives as long as the caller's transaction
public class TaskLockStore {

    /** First key of the two-key advisory locks that stand for tasks ("TASK"); the second is the name's hashtext. */
    static final int TASK_LOCKS = 0x5441534B;

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    /** Takes the task's lock until the transaction ends, if no other transaction holds it; whether it did. */
    public boolean tryLock(String task) {
        return Jdbc.query(dataSource, e -> new IllegalStateException("advisory lock of task " + task + " failed: " + e.getMessage(), e),
                "SELECT pg_try_advisory_xact_lock(?, hashtext(?))", rs -> rs.getBoolean(1), TASK_LOCKS, task).get(0);
    }
}
