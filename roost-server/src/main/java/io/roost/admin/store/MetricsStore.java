package io.roost.admin.store;

import io.roost.platform.metrics.StoreTimed;
import io.roost.admin.MetricsSampler;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
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

    /**
     * This node's counts in a bucket, committed on return (its own transaction), so the sampler
     * moves its baseline only past counts that are stored.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public void insertNodeSamples(OffsetDateTime bucket, int node, Map<String, Long> counts) {
        for (Map.Entry<String, Long> m : counts.entrySet()) {
            em.createNativeQuery("INSERT INTO admin_node_sample (bucket, node, metric, value) VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING")
                    .setParameter(1, bucket).setParameter(2, node).setParameter(3, m.getKey()).setParameter(4, m.getValue())
                    .executeUpdate();
        }
    }

    /** Deletes samples and bucket claims older than {@code keepSeconds}. */
    public void purgeOlderThan(double keepSeconds) {
        em.createNativeQuery("DELETE FROM admin_sample WHERE bucket < now() - make_interval(secs => ?1)")
                .setParameter(1, keepSeconds).executeUpdate();
        em.createNativeQuery("DELETE FROM admin_sample_bucket WHERE bucket < now() - make_interval(secs => ?1)")
                .setParameter(1, keepSeconds).executeUpdate();
        em.createNativeQuery("DELETE FROM admin_node_sample WHERE bucket < now() - make_interval(secs => ?1)")
                .setParameter(1, keepSeconds).executeUpdate();
    }

    /**
     * Every metric over the last {@code rangeSeconds} in steps of {@code stepSeconds}, metrics in name
     * order: the sampled numbers averaged per step; the nodes' counts summed over the nodes and the
     * step, as a rate per second.
     */
    public List<MetricsSampler.Series> series(long rangeSeconds, long stepSeconds) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT metric, extract(epoch FROM date_bin(make_interval(secs => ?1), bucket, TIMESTAMPTZ 'epoch'))::bigint,
                               round(avg(value))
                        FROM admin_sample WHERE bucket >= now() - make_interval(secs => ?2)
                        GROUP BY 1, 2
                        UNION ALL
                        SELECT metric || '_per_second', extract(epoch FROM date_bin(make_interval(secs => ?1), bucket, TIMESTAMPTZ 'epoch'))::bigint,
                               round(sum(value) / CAST(?1 AS numeric), 2)
                        FROM admin_node_sample WHERE bucket >= now() - make_interval(secs => ?2)
                        GROUP BY 1, 2
                        ORDER BY 1, 2""")
                .setParameter(1, (double) stepSeconds).setParameter(2, (double) rangeSeconds).getResultList();
        Map<String, List<Number[]>> byMetric = new TreeMap<>();
        for (Object[] r : rows) {
            java.math.BigDecimal value = (java.math.BigDecimal) r[2];
            Number point = value.stripTrailingZeros().scale() <= 0 ? (Number) value.longValue() : (Number) value.doubleValue();
            byMetric.computeIfAbsent((String) r[0], k -> new ArrayList<>()).add(new Number[] {((Number) r[1]).longValue(), point});
        }
        Map<String, MetricsSampler.Series> ordered = new LinkedHashMap<>();
        byMetric.forEach((metric, points) -> ordered.put(metric, new MetricsSampler.Series(metric, points)));
        return List.copyOf(ordered.values());
    }
}
