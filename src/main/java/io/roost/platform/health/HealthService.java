package io.roost.platform.health;

import io.roost.platform.messaging.RocketMqProducer;
import io.roost.platform.messaging.TopicProvisioner;
import jakarta.annotation.Resource;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
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

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

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
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.setQueryTimeout(3);
            try (ResultSet rs = s.executeQuery("SELECT current_setting('server_version')")) {
                rs.next();
                return new Check(true, millisSince(start), "PostgreSQL " + rs.getString(1));
            }
        } catch (Exception e) {
            return new Check(false, millisSince(start), e.getClass().getSimpleName() + ": " + e.getMessage());
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
