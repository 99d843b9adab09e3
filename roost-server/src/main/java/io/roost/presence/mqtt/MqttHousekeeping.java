package io.roost.presence.mqtt;

import io.roost.platform.cluster.Draining;
import io.roost.platform.cluster.OncePerCluster;
import io.roost.presence.store.MqttStore;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.EJB;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Cleans closed connections after their retention and history after ROOST_MQTT_HISTORY_DAYS, in
 * small batches, each its own transaction, one node at a time ({@link OncePerCluster}).
 */
@Singleton
@Startup
@DependsOn("DatabaseMigrator")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class MqttHousekeeping {

    @Inject
    Draining draining;

    private static final Logger LOG = Logger.getLogger(MqttHousekeeping.class.getName());
    static final int BATCH = 5_000;
    /** Connections per purge transaction: each of their clients takes an advisory lock (see MqttStore). */
    static final int CONNECTION_BATCH = 1_000;

    @EJB
    MqttStore store;

    @EJB
    OncePerCluster once;

    @Inject
    MqttSettings settings;

    @Schedule(hour = "*", minute = "*", second = "*/30", persistent = false, info = "mqtt-housekeeping")
    void tick() {
        if (draining.isDraining()) {
            return; // a draining node claims no more work
        }
        try {
            while (once.run("mqtt-connection-purge",
                    () -> store.purgeClosedConnections(settings.connectionRetention(), CONNECTION_BATCH)) == CONNECTION_BATCH) {
                Thread.onSpinWait();
            }
            while (once.run("mqtt-history-purge", () -> store.purgeHistory(settings.historyDays(), BATCH)) == BATCH) {
                Thread.onSpinWait();
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "MQTT housekeeping failed; next tick retries", e);
        }
    }
}
