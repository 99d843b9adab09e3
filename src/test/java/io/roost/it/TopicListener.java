package io.roost.it;

import static io.roost.it.Http.json;

import jakarta.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.Message;

/**
 * A test's own consumer of a topic Roost publishes to (room events, SMS codes), live before the
 * tests run: {@link #start} returns only once a probe message it sent came back. A consumer whose
 * topic did not exist yet when it started finds its queues only at RocketMQ's next rebalance, up to
 * 20 s later — longer than a room's anchor timeout in the tests.
 */
public final class TopicListener implements AutoCloseable {

    private static final String PROBE = "topicListenerProbe";

    private final DefaultMQPushConsumer consumer;

    private TopicListener(DefaultMQPushConsumer consumer) {
        this.consumer = consumer;
    }

    /** Listens to {@code topic} with a group of its own; {@code onEvent} gets each JSON body but the probe. */
    public static TopicListener start(String topic, Consumer<JsonObject> onEvent) throws Exception {
        String nameServer = System.getProperty("roost.test.namesrv");
        String probeId = UUID.randomUUID().toString();
        // The probe also creates the topic on the dev broker, so the consumer finds its route at start.
        DefaultMQProducer producer = new DefaultMQProducer("roost-it-probe-" + probeId.substring(0, 8));
        producer.setNamesrvAddr(nameServer);
        producer.setInstanceName("roost-it-listener-" + probeId.substring(0, 8));
        producer.start();
        try {
            producer.send(new Message(topic, "probe", ("{\"" + PROBE + "\":\"" + probeId + "\"}").getBytes(StandardCharsets.UTF_8)));
        } finally {
            producer.shutdown();
        }
        CountDownLatch probed = new CountDownLatch(1);
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer("roost-it-" + topic + "-" + probeId.substring(0, 8));
        consumer.setNamesrvAddr(nameServer);
        consumer.setPollNameServerInterval(1000);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
        consumer.subscribe(topic, "*");
        consumer.registerMessageListener((MessageListenerConcurrently) (messages, context) -> {
            messages.forEach(m -> {
                JsonObject event = json(new String(m.getBody(), StandardCharsets.UTF_8));
                if (event.containsKey(PROBE)) {
                    if (probeId.equals(event.getString(PROBE))) {
                        probed.countDown();
                    }
                } else {
                    onEvent.accept(event);
                }
            });
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        if (!probed.await(60, TimeUnit.SECONDS)) {
            consumer.shutdown();
            throw new IllegalStateException("the listener on " + topic + " did not get its probe back within 60 s");
        }
        return new TopicListener(consumer);
    }

    @Override
    public void close() {
        consumer.shutdown();
    }
}
