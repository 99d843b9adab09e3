package io.roost.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.platform.messaging.ConsumerSpec;
import io.roost.platform.messaging.PushConsumers;
import io.roost.platform.messaging.RocketMqSettings;
import io.roost.platform.messaging.TopicDeclaration;
import io.roost.platform.messaging.TopicProvisioner;
import jakarta.ejb.EJB;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.junit.jupiter.api.Test;

/**
 * In-container: every topic Roost publishes to or consumes from exists once it is deployed on a
 * fresh broker, so the first events are as quick as later ones (a consumer on a topic the broker
 * did not know yet found its queues 20 s later). The topics are the ones the modules declare, read
 * from the same beans TopicProvisioner reads, so a topic a module adds is checked without a list
 * here to forget it in. And a node's consumer takes up a queue added to its topic within seconds.
 */
@InContainer
class TopicsInContainerIT {

    @Inject
    @Any
    Instance<TopicDeclaration> declarations;

    @Inject
    PushConsumers consumers;

    @Inject
    RocketMqSettings settings;

    @EJB
    TopicProvisioner topics;

    @Test
    void everyTopicExistsBeforeItsFirstEvent() throws Exception {
        Set<String> declared = new TreeSet<>();
        declarations.forEach(d -> declared.addAll(d.topics()));
        // two that show the declarations were all read: the configured MQTT status topic, and chat's second one
        assertTrue(declared.containsAll(Set.of("GID_ROOST_IT_MQTT", "roost-offline-push")), declared.toString());
        List<String> missing = new ArrayList<>();
        try (BrokerAdmin broker = new BrokerAdmin(settings.nameServer())) {
            for (String topic : declared) {
                if (!broker.exists(topic)) {
                    missing.add(topic);
                }
            }
        }
        assertEquals(List.of(), missing, "declared topics the broker does not have (declared: " + declared + ")");
    }

    @Test
    void aQueueAddedToATopicIsConsumedWithinSeconds() throws Exception {
        String topic = "roost-it-grow-" + UUID.randomUUID().toString().substring(0, 8);
        topics.ensure(topic);
        assertTrue(topics.missing().isEmpty(), "not created: " + topics.missing());
        BlockingQueue<String> received = new LinkedBlockingQueue<>();
        DefaultMQPushConsumer consumer = consumers.start(ConsumerSpec.of(topic + "-group", topic, "*"),
                messages -> messages.forEach(m -> received.add(new String(m.getBody(), StandardCharsets.UTF_8))));
        try (BrokerAdmin broker = new BrokerAdmin(settings.nameServer())) {
            broker.send(topic, 0, "before");
            assertEquals("before", received.poll(30, TimeUnit.SECONDS), "the consumer is live");

            int queues = settings.topicQueues();
            broker.setQueues(topic, queues * 2);
            long grownAt = System.nanoTime();
            broker.send(topic, queues * 2 - 1, "in a new queue");
            String body = received.poll(20, TimeUnit.SECONDS);
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - grownAt);
            assertNotNull(body, "the new queue's message was not consumed within 20 s");
            assertEquals("in a new queue", body);
            assertTrue(seconds <= 5, "the new queue was taken up after " + seconds + " s");
        } finally {
            consumer.shutdown();
        }
    }
}
