package io.roost.platform.messaging;

import io.roost.platform.metrics.PlatformMeters;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyContext;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * A push consumer's listener: acknowledges a batch (CONSUME_SUCCESS) only when the handler
 * returned, i.e. after its transaction committed; answers a failure with RECONSUME_LATER, so
 * RocketMQ delivers every message of the batch again, until a message that failed on its
 * {@code maxReconsumeTimes}-th redelivery goes to the group's dead-letter queue instead. Counts
 * each message handled (with its delay since its birth at the producer), redelivered or dead.
 */
final class MeteredListener implements MessageListenerConcurrently {

    private static final Logger LOG = Logger.getLogger(PushConsumers.class.getName());

    private final ConsumerSpec spec;
    private final MessageBatchHandler handler;
    private final PlatformMeters.Consumer meters;
    private final int maxReconsumeTimes;
    private final LongSupplier clock;

    MeteredListener(ConsumerSpec spec, MessageBatchHandler handler, PlatformMeters.Consumer meters, int maxReconsumeTimes,
                    LongSupplier clock) {
        this.spec = spec;
        this.handler = handler;
        this.meters = meters;
        this.maxReconsumeTimes = maxReconsumeTimes;
        this.clock = clock;
    }

    @Override
    public ConsumeConcurrentlyStatus consumeMessage(List<MessageExt> messages, ConsumeConcurrentlyContext context) {
        try {
            handler.handle(messages);
        } catch (Exception | Error e) {
            LOG.log(Level.WARNING, "Consumer " + spec.group() + " failed on " + messages.size()
                    + " message(s) of " + spec.topic() + "; they will be redelivered", e);
            // the broker moves a message sent back after its last allowed redelivery to the DLQ
            int dead = (int) messages.stream().filter(m -> m.getReconsumeTimes() >= maxReconsumeTimes).count();
            meters.failed(messages.size() - dead, dead);
            return ConsumeConcurrentlyStatus.RECONSUME_LATER;
        }
        long now = clock.getAsLong();
        for (MessageExt m : messages) {
            meters.handled(now - m.getBornTimestamp());
        }
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    }
}
