package io.roost.presence.session;

import io.roost.platform.config.NodeIdentity;
import io.roost.presence.store.RouteStore;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.EJB;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import java.net.InetAddress;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * This node in the node table, heartbeating every 5 s; and, every 5 s on every node, the expiry of
 * sessions that went silent or whose node stopped heartbeating for {@code ROOST_NODE_TIMEOUT} (so a
 * crashed node does not leave its users online for ever). At start, the sessions this node's
 * previous run left end first.
 */
@Singleton
@Startup
@DependsOn("DatabaseMigrator")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class NodeRegistry {

    private static final Logger LOG = Logger.getLogger(NodeRegistry.class.getName());
    /** How often a node heartbeats: the {@code tick} schedule below. */
    static final Duration HEARTBEAT_PERIOD = Duration.ofSeconds(5);

    @EJB
    RouteStore routes;

    @Inject
    NodeIdentity node;

    @Inject
    DeviceSessions sessions;

    @Inject
    io.roost.platform.cluster.Draining draining;

    private String address;

    @PostConstruct
    void register() {
        try {
            address = InetAddress.getLocalHost().getHostName() + "/" + ProcessHandle.current().pid();
        } catch (Exception e) {
            address = "pid-" + ProcessHandle.current().pid();
        }
        // before this run's first heartbeat overwrites the last one of the run before
        for (int ended; (ended = sessions.endLeftoverSessions(node.nodeId())) > 0; ) {
            LOG.info(ended + " device session(s) left over from this node's previous run ended");
        }
        routes.heartbeatNode(node.nodeId(), address, true);
    }

    @Schedule(hour = "*", minute = "*", second = "*/5", persistent = false, info = "node-heartbeat-and-session-expiry")
    void tick() {
        try {
            routes.heartbeatNode(node.nodeId(), address, false);
            if (draining.isDraining()) {
                return; // a draining node heartbeats until it stops, and leaves the expiry to the others
            }
            int expired = sessions.expire();
            if (expired > 0) {
                LOG.fine(() -> expired + " device session(s) expired");
            }
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "node tick failed; next tick retries", e);
        }
    }
}
