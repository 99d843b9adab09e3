package io.roost.identity;

import io.roost.platform.config.NodeIdentity;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.security.Roles;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The first administrator. When no admin account exists yet, one is created from
 * {@code ROOST_ADMIN_USER} / {@code ROOST_ADMIN_PASSWORD}. Outside dev mode a missing password
 * stops the deployment (no server with a guessable admin); dev mode generates one and logs it.
 */
@Singleton
@Startup
@DependsOn("DatabaseMigrator")
public class BootstrapAdmin {

    private static final Logger LOG = Logger.getLogger(BootstrapAdmin.class.getName());

    @Inject
    AccountService accounts;

    @Inject
    NodeIdentity node;

    @Inject
    @ConfigProperty(name = "roost.admin.user", defaultValue = "admin")
    String adminUser;

    @Inject
    @ConfigProperty(name = "roost.admin.password")
    Optional<String> adminPassword;

    @PostConstruct
    void ensureAdmin() {
        if (accounts.anyAdminExists()) {
            return;
        }
        String password = adminPassword.filter(p -> !p.isBlank()).orElse(null);
        boolean generated = false;
        if (password == null) {
            if (!node.devMode()) {
                throw new IllegalStateException("No admin account exists and ROOST_ADMIN_PASSWORD is not set: "
                        + "refusing to start (set it, or ROOST_MODE=dev to generate one)");
            }
            byte[] random = new byte[18];
            new SecureRandom().nextBytes(random);
            password = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
            generated = true;
        }
        try {
            accounts.create(adminUser, password, Set.of(Roles.ADMIN));
        } catch (ProblemException e) {
            // Another node created it at the same moment, or the name is taken by a non-admin.
            LOG.warning(() -> "Bootstrap admin '" + adminUser + "' not created: " + e.getMessage());
            return;
        }
        if (generated) {
            java.nio.file.Path file = DevSecrets.append("admin-password", password);
            LOG.warning("Dev mode: created admin '" + adminUser + "' with a generated password, the last line of " + file);
        } else {
            LOG.info(() -> "Created bootstrap admin '" + adminUser + "'");
        }
    }
}
