package io.roost.it;

import io.roost.platform.messaging.ConsumedMessages;
import io.roost.platform.messaging.ConsumerSpec;
import io.roost.platform.messaging.MessageIds;
import io.roost.platform.messaging.PushConsumers;
import io.roost.platform.messaging.RocketMqProducer;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.ejb.DependsOn;
import jakarta.ejb.EJB;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * Test-only consumer deployed with the in-container tests: consumes the probe topic through the
 * platform's consumer plumbing and remembers what it was delivered, and of that what it applied
 * (once per message id) and what it skipped as a redelivery.
 */
@Singleton
@Startup
@DependsOn({"DatabaseMigrator", "RocketMqProducer"})
public class ProbeConsumer {

    public static final String TOPIC = "roost-it-probe";
    public static final ConcurrentLinkedQueue<String> APPLIED = new ConcurrentLinkedQueue<>();
    public static final ConcurrentLinkedQueue<String> DELIVERED = new ConcurrentLinkedQueue<>();
    /** Deliveries the consumer skipped as redeliveries of a message it applied already. */
    public static final ConcurrentLinkedQueue<String> SKIPPED = new ConcurrentLinkedQueue<>();

    @Inject
    PushConsumers consumers;

    @Inject
    ProbeApplier applier;

    @EJB
    RocketMqProducer producer;

    private DefaultMQPushConsumer consumer;

    @PostConstruct
    void start() {
        try {
            // Creates the topic on a dev broker, so the consumer finds its route at once.
            producer.send(0, TOPIC, "warm-up", "warm-up", "warm-up");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        consumer = consumers.start(new ConsumerSpec("roost-it-probe", TOPIC, "probe", 16, 2), applier::apply);
    }

    @PreDestroy
    void stop() {
        consumer.shutdown();
    }

    @jakarta.enterprise.context.ApplicationScoped
    public static class ProbeApplier {

        @Inject
        ConsumedMessages consumed;

        @Transactional
        public void apply(List<MessageExt> messages) {
            for (MessageExt m : messages) {
                String body = new String(m.getBody(), StandardCharsets.UTF_8);
                DELIVERED.add(body);
                if (consumed.firstDelivery("roost-it-probe", MessageIds.of(m))) {
                    APPLIED.add(body);
                } else {
                    SKIPPED.add(body);
                }
            }
        }
    }
}
