package io.roost.presence.session;

import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

/** The EJB timer that writes this node's buffered device heartbeats every 5 s (per node: each node flushes its own buffer). */
@Singleton
@Startup
@DependsOn("DatabaseMigrator")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class HeartbeatFlush {

    @Inject
    HeartbeatBuffer buffer;

    @Schedule(hour = "*", minute = "*", second = "*/5", persistent = false, info = "heartbeat-flush")
    void tick() {
        buffer.flush();
    }
}
