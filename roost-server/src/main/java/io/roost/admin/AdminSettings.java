package io.roost.admin;

import io.roost.platform.config.Durations;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Admin configuration (environment variables in the README). */
@ApplicationScoped
public class AdminSettings {

    @Inject
    @ConfigProperty(name = "roost.admin.metrics-retention", defaultValue = "7d")
    String metricsRetention;

    /** How long the dashboard's 10 s samples are kept. */
    public Duration metricsRetention() {
        return Durations.parse(metricsRetention);
    }
}
