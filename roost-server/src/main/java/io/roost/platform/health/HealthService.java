package io.roost.platform.health;

import io.roost.platform.messaging.RocketMqProducer;
import io.roost.platform.messaging.TopicProvisioner;
import io.roost.platform.store.HealthStore;
import jakarta.ejb.EJB;
import jakarta.ejb.EJBException;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** Can this node reach what it depends on? Database and broker, each timed. */
@ApplicationScoped
public class HealthService {

    @Schema(name = "HealthCheck") // the OpenAPI schema's name: Check alone says little in a client
    public record Check(boolean up, long latencyMs, String detail) {
    }

    @Schema(name = "HealthReport")
    public record Report(boolean up, Map<String, Check> checks) {
    }

    @EJB
    HealthStore store;

    @EJB
    RocketMqProducer producer;

    @EJB
    TopicProvisioner topics;

    public Report check() {
        Map<String, Check> checks = new LinkedHashMap<>();
        checks.put("database", database());
        checks.put("rocketmq", rocketmq());
        checks.put("topics", topics());
        boolean up = checks.values().stream().allMatch(Check::up);
        return new Report(up, checks);
    }

    Check database() {
        long start = System.nanoTime();
        try {
            return new Check(true, millisSince(start), "PostgreSQL " + store.serverVersion(3));
        } catch (Exception e) {
            // the store is an EJB: it wraps a runtime failure, and the report names the failure itself
            Throwable failure = e instanceof EJBException && e.getCause() != null ? e.getCause() : e;
            return new Check(false, millisSince(start), failure.getClass().getSimpleName() + ": " + failure.getMessage());
        }
    }

    Check rocketmq() {
        long start = System.nanoTime();
        boolean up = producer.brokerReachable(3000);
        return new Check(up, millisSince(start), up ? "name server answered with a broker"
                : "no broker reachable through the name server");
    }

    /** Every topic Roost uses exists (a node without them would miss events). */
    Check topics() {
        var missing = topics.missing();
        return new Check(missing.isEmpty(), 0, missing.isEmpty() ? "every topic exists" : "missing: " + missing);
    }

    private static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
