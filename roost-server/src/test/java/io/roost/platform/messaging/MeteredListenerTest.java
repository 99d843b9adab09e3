package io.roost.platform.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.roost.platform.metrics.Meters;
import io.roost.platform.metrics.PlatformMeters;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.common.message.MessageExt;
import org.junit.jupiter.api.Test;

class MeteredListenerTest {

    static final long NOW = 1_800_000_000_000L;
    static final int MAX_RECONSUME = 16;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final Meters meters = Meters.over(registry);
    private final ConsumerSpec spec = new ConsumerSpec("roost-login-log", "roost-login-events", "*", 64, 2);

    private MeteredListener listener(MessageBatchHandler handler) {
        return new MeteredListener(spec, handler, PlatformMeters.over(meters).consumer(spec.group()), MAX_RECONSUME, () -> NOW);
    }

    private static MessageExt message(long bornAgoMillis, int reconsumeTimes) {
        MessageExt m = new MessageExt();
        m.setBornTimestamp(NOW - bornAgoMillis);
        m.setReconsumeTimes(reconsumeTimes);
        return m;
    }

    @Test
    void aHandledBatchCountsEachMessageWithItsDelaySinceBirth() {
        var status = listener(messages -> { }).consumeMessage(List.of(message(40, 0), message(1_500, 2)), null);

        assertEquals(ConsumeConcurrentlyStatus.CONSUME_SUCCESS, status);
        assertEquals(2, meters.total("roost.messaging.consumed"));
        Timer delay = registry.get("roost.messaging.delay").tag("group", "roost-login-log").timer();
        assertEquals(2, delay.count());
        assertEquals(1.5, delay.max(TimeUnit.SECONDS), 0.001);
        assertEquals(0, meters.total("roost.messaging.failures"));
    }

    @Test
    void aFailureIsRedeliveredExceptAtTheLastAllowedRedeliveryWhereItIsADeadLetter() {
        var status = listener(messages -> {
            throw new IllegalStateException("the database is gone");
        }).consumeMessage(List.of(message(10, 0), message(10, MAX_RECONSUME - 1), message(10, MAX_RECONSUME)), null);

        assertEquals(ConsumeConcurrentlyStatus.RECONSUME_LATER, status);
        assertEquals(2, meters.total("roost.messaging.failures"), "delivered again");
        assertEquals(1, meters.total("roost.messaging.dead.letters"), "failed on its 16th redelivery: to the DLQ");
        assertEquals(0, meters.total("roost.messaging.consumed"));
    }
}
