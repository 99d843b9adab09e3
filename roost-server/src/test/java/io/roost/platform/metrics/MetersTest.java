package io.roost.platform.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MetersTest {

    /** The shape of WildFly's per-deployment registry: it wraps the exporting one. */
    static class DeploymentRegistry extends SimpleMeterRegistry {
        final MeterRegistry parentRegistry;
        final String deploymentName;

        DeploymentRegistry(MeterRegistry parent, String deployment) {
            this.parentRegistry = parent;
            this.deploymentName = deployment;
        }
    }

    @Test
    void theSameNameAndTagsGiveTheSameCounterAndTotalsSumEveryTag() {
        Meters meters = Meters.over(new SimpleMeterRegistry());
        meters.counter("roost.test.sends", "sends", "kind", "one_to_one").increment(2);
        meters.counter("roost.test.sends", "sends", "kind", "group").increment(3);
        assertSame(meters.counter("roost.test.sends", "sends", "kind", "group"), meters.counter("roost.test.sends", "sends", "kind", "group"));
        AtomicLong kept = new AtomicLong(4);
        meters.countOf("roost.test.sends", "sends", kept, AtomicLong::get, "kind", "kept");
        assertEquals(9, meters.total("roost.test.sends"));
        kept.addAndGet(1);
        assertEquals(10, meters.total("roost.test.sends"));
        assertEquals(0, meters.total("roost.test.unknown"));
    }

    @Test
    void aLatencyIsAHistogramOverTheLatencyBuckets() {
        Meters meters = Meters.over(new SimpleMeterRegistry());
        Timer t = meters.latency("roost.test.ack", "ack");
        t.record(Duration.ofMillis(3));
        t.record(Duration.ofMillis(700));
        var buckets = t.takeSnapshot().histogramCounts();
        assertEquals(Meters.LATENCY_BUCKETS.length, buckets.length);
        assertEquals(1, buckets[2].count(), "3 ms is within the 5 ms bucket: " + buckets[2]); // cumulative
        assertEquals(2, buckets[9].count(), "700 ms is within the 1 s bucket: " + buckets[9]);
    }

    @Test
    void onWildFlysDeploymentRegistryTheMetersGoToTheRegistryBehindItWithTheDeploymentsTag() {
        SimpleMeterRegistry exporting = new SimpleMeterRegistry();
        DeploymentRegistry own = new DeploymentRegistry(exporting, "roost.war");
        Meters meters = new Meters();
        meters.use(own);
        meters.latency("roost.test.ack", "ack").record(Duration.ofMillis(1));
        meters.gauge("roost.test.depth", "depth", new AtomicLong(7), AtomicLong::get);
        assertNotNull(exporting.find("roost.test.ack").tag("WF_DEPLOYMENT", "roost.war").timer());
        assertEquals(7, exporting.find("roost.test.depth").tag("WF_DEPLOYMENT", "roost.war").gauge().value());
        assertNull(own.find("roost.test.ack").timer(), "nothing stays in the deployment's own registry");
        meters.removeMeters();
        assertNull(exporting.find("roost.test.ack").timer(), "the deployment's end removes its meters");
    }
}
