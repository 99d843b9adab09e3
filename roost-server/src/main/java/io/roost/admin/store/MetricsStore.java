package io.roost.admin.store;

import io.roost.platform.metrics.StoreTimed;
import io.roost.admin.MetricsSampler;
import jakarta.ejb.Stateless;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The admin_sample_bucket and admin_sample rows. Every method joins the sampler's transaction
 * (or begins one for a read from the API), so a bucket's claim, its samples and the purge commit
 * together.
 */
@StoreTimed
@Stateless
public class MetricsStore {

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    /** Claims a bucket for this node: false if another node (or an earlier tick) claimed it. */
    public boolean claimBucket(OffsetDateTime bucket) {
        return em.createNativeQuery("INSERT INTO admin_sample_bucket (bucket) VALUES (?1) ON CONFLICT DO NOTHING")
                .setParameter(1, bucket).executeUpdate() == 1;
    }

    /** The bucket's value of each metric. */
    public void insertSamples(OffsetDateTime bucket, Map<String, Long> values) {
        for (Map.Entry<String, Long> m : values.entrySet()) {
            em.createNativeQuery("INSERT INTO admin_sample (bucket, metric, value) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING")
                    .setParameter(1, bucket).setParameter(2, m.getKey()).setParameter(3, m.getValue()).executeUpdate();
        }
    }

    /** Deletes samples and bucket claims older than {@code keepSeconds}. */
    public void purgeOlderThan(double keepSeconds) {
        em.createNativeQuery("DELETE FROM admin_sample WHERE bucket < now() - make_interval(secs => ?1)")
                .setParameter(1, keepSeconds).executeUpdate();
        em.createNativeQuery("DELETE FROM admin_sample_bucket WHERE bucket < now() - make_interval(secs => ?1)")
                .setParameter(1, keepSeconds).executeUpdate();
    }

    /** Every metric over the last {@code rangeSeconds}, averaged into steps of {@code stepSeconds}; metrics in name order. */
    public List<MetricsSampler.Series> series(long rangeSeconds, long stepSeconds) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT metric, extract(epoch FROM date_bin(make_interval(secs => ?1), bucket, TIMESTAMPTZ 'epoch'))::bigint,
                               round(avg(value))::bigint
                        FROM admin_sample WHERE bucket >= now() - make_interval(secs => ?2)
                        GROUP BY 1, 2 ORDER BY 1, 2""")
                .setParameter(1, (double) stepSeconds).setParameter(2, (double) rangeSeconds).getResultList();
        Map<String, List<long[]>> byMetric = new TreeMap<>();
        for (Object[] r : rows) {
            byMetric.computeIfAbsent((String) r[0], k -> new ArrayList<>())
                    .add(new long[] {((Number) r[1]).longValue(), ((Number) r[2]).longValue()});
        }
        Map<String, MetricsSampler.Series> ordered = new LinkedHashMap<>();
        byMetric.forEach((metric, points) -> ordered.put(metric, new MetricsSampler.Series(metric, points)));
        return List.copyOf(ordered.values());
    }
}
