package io.roost.platform.store;

import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/** Transaction-scoped PostgreSQL advisory locks that stand for cluster-wide timer tasks. */
@Stateless
@TransactionAttribute(TransactionAttributeType.MANDATORY) // the lock lives as long as the caller's transaction
public class TaskLockStore {

    /** First key of the two-key advisory locks that stand for tasks ("TASK"); the second is the name's hashtext. */
    static final int TASK_LOCKS = 0x5441534B;

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    /** Takes the task's lock until the transaction ends, if no other transaction holds it; whether it did. */
    public boolean tryLock(String task) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT pg_try_advisory_xact_lock(?, hashtext(?))")) {
            ps.setInt(1, TASK_LOCKS);
            ps.setString(2, task);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("advisory lock of task " + task + " failed: " + e.getMessage(), e);
        }
    }
}
