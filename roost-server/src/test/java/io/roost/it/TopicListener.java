package io.roost.it;

import static io.roost.it.Http.json;

import jakarta.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
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
    private final Map<String, BlockingQueue<JsonObject>> byKey;

    private TopicListener(DefaultMQPushConsumer consumer, Map<String, BlockingQueue<JsonObject>> byKey) {
        this.consumer = consumer;
        this.byKey = byKey;
    }

    /**
     * Listens to {@code topic} with a group of its own, keeping each JSON event (but the probe) in a
     * queue by the value of its field {@code key}: a test waits for the events of its own room or phone.
     */
    public static TopicListener start(String topic, String key) throws Exception {
        Map<String, BlockingQueue<JsonObject>> byKey = new ConcurrentHashMap<>();
        String nameServer = System.getProperty("roost.test.namesrv");
        String probeId = UUID.randomUUID().toString();
        // The probe also creates the topic on the dev broker, so the consumer finds its route at start.
        DefaultMQProducer producer = BrokerAdmin.producer(nameServer, "listener");
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
                } else if (event.containsKey("messages")) { // a batch of chat messages: each is an event
                    event.getJsonArray("messages").getValuesAs(JsonObject.class).stream().filter(e -> e.get(key) instanceof jakarta.json.JsonString)
                            .forEach(e -> queue(byKey, e.getString(key)).add(e));
                } else if (event.get(key) instanceof jakarta.json.JsonString value) { // events of another kind on the topic have no such key
                    queue(byKey, value.getString()).add(event);
                }
            });
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        });
        consumer.start();
        if (!probed.await(60, TimeUnit.SECONDS)) {
            consumer.shutdown();
            throw new IllegalStateException("the listener on " + topic + " did not get its probe back within 60 s");
        }
        return new TopicListener(consumer, byKey);
    }

    /** The events whose key is {@code key}, as they arrive. */
    public BlockingQueue<JsonObject> events(String key) {
        return queue(byKey, key);
    }

    private static BlockingQueue<JsonObject> queue(Map<String, BlockingQueue<JsonObject>> byKey, String key) {
        return byKey.computeIfAbsent(key, k -> new LinkedBlockingQueue<>());
    }

    @Override
    public void close() {
        consumer.shutdown();
    }
}
