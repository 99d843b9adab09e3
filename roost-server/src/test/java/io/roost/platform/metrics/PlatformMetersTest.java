package io.roost.platform.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class PlatformMetersTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Meters meters = Meters.over(registry);
    private final PlatformMeters platform = PlatformMeters.over(meters);

    @Test
    void theOutboxGaugesShowTheLastReadingAndTheLagIsInSeconds() {
        assertEquals(0, registry.get("roost.outbox.backlog").gauge().value());
        platform.outbox(42, 3.5);
        assertEquals(42, registry.get("roost.outbox.backlog").gauge().value());
        assertEquals(3.5, registry.get("roost.outbox.lag").gauge().value());
        assertEquals("seconds", registry.get("roost.outbox.lag").gauge().getId().getBaseUnit(),
                "exported as roost_outbox_lag_seconds");
    }

    @Test
    void aConsumerGroupCountsHandledFailedAndDeadMessagesAndTheirDelay() {
        PlatformMeters.Consumer c = platform.consumer("roost-login-log");
        c.handled(250);
        c.handled(-5); // a producer's clock ahead of ours
        c.failed(3, 1);

        assertEquals(2, meters.total("roost.messaging.consumed"));
        assertEquals(3, meters.total("roost.messaging.failures"));
        assertEquals(1, meters.total("roost.messaging.dead.letters"));
        var delay = registry.get("roost.messaging.delay").tag("group", "roost-login-log").timer();
        assertEquals(2, delay.count());
        assertEquals(250, delay.totalTime(java.util.concurrent.TimeUnit.MILLISECONDS), 0.001);
        assertEquals(platform.consumer("roost-login-log").consumed(), c.consumed(), "a group's meters are registered once");
    }
}
