package io.roost.gateway.events;

import io.roost.gateway.ChatDelivery;
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
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

/**
 * Frames other nodes routed to connections held here ({@link Delivery}); each node reads its own
 * tag. A chat message is pushed with its acknowledgement tracked, as if it had been routed here.
 */
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

    @Inject
    ChatDelivery chatDelivery;

    private DefaultMQPushConsumer consumer;

    @PostConstruct
    void start() {
        consumer = consumers.start(ConsumerSpec.of("roost-deliveries-node-" + node.nodeId(), Delivery.TOPIC,
                "node-" + node.nodeId()), messages -> messages.forEach(m -> {
                    JsonObject o = Jsonp.PROVIDER.createReader(new StringReader(new String(m.getBody(), StandardCharsets.UTF_8)))
                            .readObject();
                    String frame = o.getString("frame");
                    List<JsonString> targets = o.getJsonArray("connectionIds").getValuesAs(JsonString.class);
                    JsonObject chat = o.getJsonObject("chat");
                    if (chat == null) {
                        targets.forEach(c -> connections.send(c.getString(), frame));
                        return;
                    }
                    List<JsonNumber> owners = o.getJsonArray("uids").getValuesAs(JsonNumber.class);
                    for (int i = 0; i < targets.size(); i++) {
                        chatDelivery.deliverHere(targets.get(i).getString(), owners.get(i).longValue(), chat.getJsonNumber("from").longValue(),
                                chat.getJsonNumber("to").longValue(), chat.getJsonNumber("seq").longValue(), frame);
                    }
                }));
    }

    @PreDestroy
    void stop() {
        consumer.shutdown();
    }
}
