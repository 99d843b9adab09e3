package io.roost.social;

import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;

/** Marks friend requests past their expiry as EXPIRED (reads treat them as expired already). */
@Singleton
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class SocialHousekeeping {

    private static final Logger LOG = Logger.getLogger(SocialHousekeeping.class.getName());

    @Inject
    SocialGraph graph;

    @Schedule(hour = "*", minute = "*/10", persistent = false, info = "social-housekeeping")
    void tick() {
        try {
            graph.expireRequests();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "social housekeeping failed; the next tick retries", e);
        }
    }
}
