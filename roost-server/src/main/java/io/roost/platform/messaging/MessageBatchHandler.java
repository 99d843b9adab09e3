package io.roost.platform.messaging;

import java.util.List;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * Applies a batch of messages. It returns normally only after PostgreSQL has committed the
 * effect; any exception makes RocketMQ deliver the batch again later. Must be idempotent
 * (see {@link ConsumedMessages}).
 */
@FunctionalInterface
public interface MessageBatchHandler {
    void handle(List<MessageExt> messages) throws Exception;
}
