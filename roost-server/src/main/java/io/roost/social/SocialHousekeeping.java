package io.roost.social;

import io.roost.platform.cluster.Draining;
import io.roost.platform.cluster.OncePerCluster;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.EJB;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Marks friend requests past their expiry as EXPIRED (reads treat them as expired already); one node
 * per tick ({@link OncePerCluster}).
 */
@Singleton
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class SocialHousekeeping {

    @Inject
    Draining draining;

    private static final Logger LOG = Logger.getLogger(SocialHousekeeping.class.getName());

    @EJB
    OncePerCluster once;

    @Inject
    SocialGraph graph;

    @Schedule(hour = "*", minute = "*/10", persistent = false, info = "social-housekeeping")
    void tick() {
        if (draining.isDraining()) {
            return; // a draining node claims no more work
        }
        try {
            once.run("social-housekeeping", graph::expireRequests);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "social housekeeping failed; the next tick retries", e);
        }
    }
}
