package io.roost.admin;

import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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

    private static final Logger LOG = Logger.getLogger(MetricsSampler.class.getName());
    static final int BUCKET_SECONDS = 10;

    /** One chart line: points of (epoch second, value). */
    public record Series(String metric, List<long[]> points) {
    }

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    @Inject
    Overview overview;

    @Inject
    AdminSettings settings;

    @Schedule(hour = "*", minute = "*", second = "*/10", persistent = false, info = "admin-metrics")
    void tick() {
        try {
            sample(Instant.now());
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "admin metrics sample failed; the next tick samples again", e);
        }
    }

    /** Samples the 10 s bucket containing {@code at} unless another node did; true if this call did. */
    public boolean sample(Instant at) {
        OffsetDateTime bucket = Instant.ofEpochSecond(at.getEpochSecond() / BUCKET_SECONDS * BUCKET_SECONDS).atOffset(ZoneOffset.UTC);
        if (em.createNativeQuery("INSERT INTO admin_sample_bucket (bucket) VALUES (?1) ON CONFLICT DO NOTHING")
                .setParameter(1, bucket).executeUpdate() == 0) {
            return false;
        }
        for (Map.Entry<String, Long> m : overview.sample().entrySet()) {
            em.createNativeQuery("INSERT INTO admin_sample (bucket, metric, value) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING")
                    .setParameter(1, bucket).setParameter(2, m.getKey()).setParameter(3, m.getValue()).executeUpdate();
        }
        double keep = settings.metricsRetention().toSeconds();
        em.createNativeQuery("DELETE FROM admin_sample WHERE bucket < now() - make_interval(secs => ?1)").setParameter(1, keep).executeUpdate();
        em.createNativeQuery("DELETE FROM admin_sample_bucket WHERE bucket < now() - make_interval(secs => ?1)").setParameter(1, keep).executeUpdate();
        return true;
    }

    /** Every metric over the last {@code range}, averaged into {@code step} buckets (at least 10 s). */
    public List<Series> series(Duration range, Duration step) {
        long stepSeconds = Math.max(BUCKET_SECONDS, step.toSeconds());
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT metric, extract(epoch FROM date_bin(make_interval(secs => ?1), bucket, TIMESTAMPTZ 'epoch'))::bigint,
                               round(avg(value))::bigint
                        FROM admin_sample WHERE bucket >= now() - make_interval(secs => ?2)
                        GROUP BY 1, 2 ORDER BY 1, 2""")
                .setParameter(1, (double) stepSeconds).setParameter(2, (double) range.toSeconds()).getResultList();
        Map<String, List<long[]>> byMetric = new TreeMap<>();
        for (Object[] r : rows) {
            byMetric.computeIfAbsent((String) r[0], k -> new ArrayList<>())
                    .add(new long[] {((Number) r[1]).longValue(), ((Number) r[2]).longValue()});
        }
        Map<String, Series> ordered = new LinkedHashMap<>();
        byMetric.forEach((metric, points) -> ordered.put(metric, new Series(metric, points)));
        return List.copyOf(ordered.values());
    }
}
