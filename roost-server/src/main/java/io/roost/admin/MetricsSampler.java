package io.roost.admin;

import io.roost.platform.cluster.Draining;
import io.roost.admin.store.MetricsStore;
import io.roost.platform.config.NodeIdentity;
import io.roost.platform.metrics.Meters;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.EJB;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Samples the overview numbers every 10 s into {@code admin_sample} for the dashboard's charts.
 * Every node ticks; the one whose insert of the bucket row wins samples it. Old samples are
 * deleted after {@code ROOST_ADMIN_METRICS_RETENTION}; long ranges are averaged on read.
 * <p>
 * Each node also writes what its own chat meters counted since its last tick into
 * {@code admin_node_sample} (the same counters Prometheus scrapes, so the console and Grafana
 * agree); the charts sum the nodes into rates per second. A draining node still writes them: the
 * work it finishes counts.
 */
@Singleton
@Startup
@DependsOn("DatabaseMigrator")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class MetricsSampler {

    @Inject
    Draining draining;

    private static final Logger LOG = Logger.getLogger(MetricsSampler.class.getName());
    static final int BUCKET_SECONDS = 10;

    /** One chart line: points of (epoch second, value). */
    public record Series(String metric, List<Number[]> points) {
    }

    /** The chart's name of each counted meter ({@code <name>_per_second} in the series). */
    static final Map<String, String> NODE_COUNTS = Map.of(
            "chat_messages", "roost.chat.sends",
            "chat_pushes", "roost.chat.pushes",
            "chat_ack_timeouts", "roost.chat.ack.timeouts",
            "chat_unreachable_repairs", "roost.chat.unreachable.repairs");

    @Inject
    Meters meters;

    @Inject
    NodeIdentity node;

    /** Each counted meter's total at the last stored node sample. */
    private final Map<String, Long> counted = new ConcurrentHashMap<>();

    @EJB
    MetricsStore store;

    @Inject
    Overview overview;

    @Inject
    AdminSettings settings;

    @Schedule(hour = "*", minute = "*", second = "*/10", persistent = false, info = "admin-metrics")
    void tick() {
        try {
            sampleNode(Instant.now());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "node metrics sample failed; the next tick counts these with its own", e);
        }
        if (draining.isDraining()) {
            return; // a draining node claims no more work
        }
        try {
            sample(Instant.now());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "admin metrics sample failed; the next tick samples again", e);
        }
    }

    /** Samples the 10 s bucket containing {@code at} unless another node did; true if this call did. */
    public boolean sample(Instant at) {
        OffsetDateTime bucket = bucketOf(at);
        if (!store.claimBucket(bucket)) {
            return false;
        }
        store.insertSamples(bucket, overview.sample());
        store.purgeOlderThan(settings.metricsRetention().toSeconds());
        return true;
    }

    /** Stores what this node counted since its last stored sample, in the bucket containing {@code at}. */
    public void sampleNode(Instant at) {
        Map<String, Long> totals = new HashMap<>();
        Map<String, Long> deltas = new HashMap<>();
        NODE_COUNTS.forEach((metric, meter) -> {
            long total = (long) meters.total(meter);
            totals.put(metric, total);
            deltas.put(metric, total - counted.getOrDefault(metric, 0L));
        });
        store.insertNodeSamples(bucketOf(at), node.nodeId(), deltas);
        counted.putAll(totals); // only past what is committed: a failed insert leaves its counts to the next tick
    }

    private static OffsetDateTime bucketOf(Instant at) {
        return Instant.ofEpochSecond(at.getEpochSecond() / BUCKET_SECONDS * BUCKET_SECONDS).atOffset(ZoneOffset.UTC);
    }

    /** Every metric over the last {@code range}, averaged into {@code step} buckets (at least 10 s). */
    public List<Series> series(Duration range, Duration step) {
        return store.series(range.toSeconds(), Math.max(BUCKET_SECONDS, step.toSeconds()));
    }
}
