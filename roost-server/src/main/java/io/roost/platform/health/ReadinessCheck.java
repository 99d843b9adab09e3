package io.roost.platform.health;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** The same checks on WildFly's management port ({@code :9990/health/ready}) for orchestrators. */
@Readiness
@ApplicationScoped
public class ReadinessCheck implements HealthCheck {

    @Inject
    HealthService health;

    @Override
    public HealthCheckResponse call() {
        HealthService.Report report = health.check();
        var builder = HealthCheckResponse.named("roost").status(report.up());
        report.checks().forEach((name, check) -> builder.withData(name, check.up() ? "UP" : "DOWN: " + check.detail()));
        return builder.build();
    }
}
