package io.roost.identity;

import io.roost.platform.cluster.Draining;
import io.roost.platform.cluster.OncePerCluster;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.EJB;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Deletes expired verification codes and throttle rows whose window and lock are over; one node per
 * tick ({@link OncePerCluster}).
 */
@Singleton
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class IdentityHousekeeping {

    @Inject
    Draining draining;

    private static final Logger LOG = Logger.getLogger(IdentityHousekeeping.class.getName());

    @EJB
    OncePerCluster once;

    @Inject
    VerificationCodes codes;

    @Inject
    AuthThrottle throttle;

    @Inject
    IdentitySettings settings;

    @Schedule(hour = "*", minute = "*/5", persistent = false, info = "identity-housekeeping")
    void tick() {
        if (draining.isDraining()) {
            return; // a draining node claims no more work
        }
        try {
            Duration longest = settings.codePolicy().window().compareTo(settings.accountLoginPolicy().window()) > 0
                    ? settings.codePolicy().window() : settings.accountLoginPolicy().window();
            once.run("identity-housekeeping", () -> codes.purgeExpired() + throttle.purge(longest));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "identity housekeeping failed; the next tick retries", e);
        }
    }
}
