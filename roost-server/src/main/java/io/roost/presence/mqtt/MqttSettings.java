package io.roost.presence.mqtt;

import io.roost.platform.config.Durations;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Configuration of the MQTT status feed (environment variables in the README). */
@ApplicationScoped
public class MqttSettings {

    @Inject
    @ConfigProperty(name = "roost.mqtt.status-topic", defaultValue = "GID_ROOST_MQTT")
    String topic;

    @Inject
    @ConfigProperty(name = "roost.mqtt.consumer-group", defaultValue = "roost-mqtt-status")
    String consumerGroup;

    @Inject
    @ConfigProperty(name = "roost.mqtt.consumer-enabled", defaultValue = "true")
    boolean consumerEnabled;

    @Inject
    @ConfigProperty(name = "roost.mqtt.batch-size", defaultValue = "1024")
    int batchSize;

    @Inject
    @ConfigProperty(name = "roost.mqtt.consumer-threads", defaultValue = "16")
    int consumerThreads;

    @Inject
    @ConfigProperty(name = "roost.mqtt.transactions", defaultValue = "2")
    int transactions;

    @Inject
    @ConfigProperty(name = "roost.mqtt.connection-retention", defaultValue = "3600s")
    String connectionRetention;

    @Inject
    @ConfigProperty(name = "roost.mqtt.history-days", defaultValue = "30")
    int historyDays;

    public String topic() {
        return topic;
    }

    public String consumerGroup() {
        return consumerGroup;
    }

    public boolean consumerEnabled() {
        return consumerEnabled;
    }

    /**
     * At most 1,024, RocketMQ's documented range for consume batches and pulls: configured with
     * 2,048 the consumer started, consumed nothing and logged nothing.
     */
    public int batchSize() {
        return Math.min(MAX_BATCH, Math.max(1, batchSize));
    }

    static final int MAX_BATCH = 1_024;

    public int consumerThreads() {
        return consumerThreads;
    }

    /** Lanes of client ids, each running one combined transaction at a time: how many may run at once on this node. */
    public int transactions() {
        return Math.max(1, transactions);
    }

    public Duration connectionRetention() {
        return Durations.parse(connectionRetention);
    }

    public int historyDays() {
        return historyDays;
    }
}
