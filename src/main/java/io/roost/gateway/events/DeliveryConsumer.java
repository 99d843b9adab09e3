package io.roost.gateway.events;

import io.roost.gateway.Connections;
import io.roost.gateway.Delivery;
import io.roost.platform.config.NodeIdentity;
import io.roost.platform.json.Jsonp;
import io.roost.platform.messaging.ConsumerSpec;
import io.roost.platform.messaging.PushConsumers;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

/** Frames other nodes routed to connections held here ({@link Delivery}); each node reads its own tag. */
@Singleton
@Startup
@DependsOn("DatabaseMigrator")
public class DeliveryConsumer {

    @Inject
    PushConsumers consumers;

    @Inject
    NodeIdentity node;

    @Inject
    Connections connections;

    private DefaultMQPushConsumer consumer;

    @PostConstruct
    void start() {
        consumer = consumers.start(ConsumerSpec.of("roost-deliveries-node-" + node.nodeId(), Delivery.TOPIC,
                "node-" + node.nodeId()), messages -> messages.forEach(m -> {
                    JsonObject o = Jsonp.PROVIDER.createReader(new StringReader(new String(m.getBody(), StandardCharsets.UTF_8)))
                            .readObject();
                    String frame = o.getString("frame");
                    o.getJsonArray("connectionIds").getValuesAs(JsonString.class)
                            .forEach(c -> connections.send(c.getString(), frame));
                }));
    }

    @PreDestroy
    void stop() {
        consumer.shutdown();
    }
}
