package io.roost.admin;

import io.roost.platform.cluster.Draining;
import io.roost.admin.store.MetricsStore;
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
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Samples the overview numbers every 10 s into {@code admin_sample} for the dashboard's charts.
 * Every node ticks; the one whose insert of the bucket row wins samples it. Old samples are
 * deleted after {@code ROOST_ADMIN_METRICS_RETENTION}; long ranges are averaged on read.
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
    public record Series(String metric, List<long[]> points) {
    }

    @EJB
    MetricsStore store;

    @Inject
    Overview overview;

    @Inject
    AdminSettings settings;

    @Schedule(hour = "*", minute = "*", second = "*/10", persistent = false, info = "admin-metrics")
    void tick() {
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
        OffsetDateTime bucket = Instant.ofEpochSecond(at.getEpochSecond() / BUCKET_SECONDS * BUCKET_SECONDS).atOffset(ZoneOffset.UTC);
        if (!store.claimBucket(bucket)) {
            return false;
        }
        store.insertSamples(bucket, overview.sample());
        store.purgeOlderThan(settings.metricsRetention().toSeconds());
        return true;
    }

    /** Every metric over the last {@code range}, averaged into {@code step} buckets (at least 10 s). */
    public List<Series> series(Duration range, Duration step) {
        return store.series(range.toSeconds(), Math.max(BUCKET_SECONDS, step.toSeconds()));
    }
}
