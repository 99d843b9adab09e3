package io.roost.platform.messaging;

import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.inject.Inject;

/**
 * Measures this node's consumer lag every 10 s (two broker round trips per queue), so that the
 * {@code roost_messaging_lag} gauge reads a number and a scrape never waits on the broker. A
 * draining node goes on measuring: its consumers still run until it stops.
 */
@Singleton
public class ConsumerLagSampler {

    @Inject
    PushConsumers consumers;

    @Schedule(hour = "*", minute = "*", second = "*/10", persistent = false, info = "consumer-lag")
    void tick() {
        consumers.lag();
    }
}
