package io.roost.presence.events;

import io.roost.platform.messaging.ConsumerSpec;
import io.roost.platform.messaging.PushConsumers;
import io.roost.presence.mqtt.MqttIngest;
import io.roost.presence.mqtt.MqttSettings;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.logging.Logger;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

/**
 * Consumes the MQTT service's client status notifications from RocketMQ
 * ({@code ROOST_MQTT_STATUS_TOPIC}, tags connect || disconnect || tcpclean) in batches. A batch is
 * acknowledged only after its transaction committed; a failure makes RocketMQ redeliver it, which
 * is harmless because applying a notification twice changes nothing.
 */
@Singleton
@Startup
@DependsOn("DatabaseMigrator")
public class MqttStatusConsumer {

    private static final Logger LOG = Logger.getLogger(MqttStatusConsumer.class.getName());

    @Inject
    PushConsumers consumers;

    @Inject
    MqttSettings settings;

    @Inject
    MqttIngest ingest;

    private DefaultMQPushConsumer consumer;

    @PostConstruct
    void start() {
        if (!settings.consumerEnabled()) {
            LOG.info("MQTT status consumer disabled (ROOST_MQTT_CONSUMER_ENABLED=false)");
            return;
        }
        consumer = consumers.start(new ConsumerSpec(settings.consumerGroup(), settings.topic(),
                        "connect || disconnect || tcpclean", settings.batchSize(), settings.consumerThreads()),
                messages -> ingest.ingestMessages(messages.stream()
                        .map(m -> new MqttIngest.Raw(m.getMsgId(), m.getTags(),
                                new String(m.getBody(), StandardCharsets.UTF_8)))
                        .toList()));
    }

    @PreDestroy
    void stop() {
        if (consumer != null) {
            consumer.shutdown();
        }
    }
}
