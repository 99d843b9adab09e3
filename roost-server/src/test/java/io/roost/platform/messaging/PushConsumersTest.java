package io.roost.platform.messaging;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.common.UtilAll;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.junit.jupiter.api.Test;

class PushConsumersTest {

    @Test
    void aGroupWithoutOffsetStartsAtTheMessagesStoredShortlyBeforeItsStartNotAtTheNewest() throws Exception {
        long now = UtilAll.parseDate("20261124140000", UtilAll.YYYYMMDDHHMMSS).getTime();
        DefaultMQPushConsumer consumer = PushConsumers.configure(new ConsumerSpec("g", "t", "*", 16, 2), "127.0.0.1:1", 7, now);

        assertEquals(ConsumeFromWhere.CONSUME_FROM_TIMESTAMP, consumer.getConsumeFromWhere());
        assertEquals("20261124135500", consumer.getConsumeTimestamp(), "five minutes before the start, in the client's own format");
        assertEquals(16, consumer.getConsumeMessageBatchMaxSize());
        assertEquals(32, consumer.getPullBatchSize());
        assertEquals(2, consumer.getConsumeThreadMax());
    }

    @Test
    void aNodesOwnGroupIsLabelledWithoutItsNodeIdSoEveryNodeHasTheSameLabels() {
        assertEquals("roost-deliveries-node", PushConsumers.groupLabel("roost-deliveries-node-3", 3));
        assertEquals("roost-login-log", PushConsumers.groupLabel("roost-login-log", 3));
        assertEquals("roost-deliveries-node-13", PushConsumers.groupLabel("roost-deliveries-node-13", 3), "another node's id is kept");
    }
}
