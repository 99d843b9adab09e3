package io.roost.gateway.events;

import io.roost.gateway.ChatDelivery;
import io.roost.gateway.Connections;
import io.roost.gateway.Delivery;
import io.roost.gateway.Forwarded;
import io.roost.gateway.GroupFanout;
import io.roost.gateway.GroupForward;
import io.roost.platform.config.NodeIdentity;
import io.roost.platform.messaging.ConsumerSpec;
import io.roost.platform.messaging.PushConsumers;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

/**
 * Frames other nodes routed to connections held here ({@link Delivery}); each node reads its own
 * tag. A chat message is pushed with its acknowledgement tracked, as if it had been routed here.
 */
@Singleton
@Startup
@DependsOn({"DatabaseMigrator", "NodeRegistry"}) // what waits for this node's previous run is read after that run's sessions ended
public class DeliveryConsumer {

    @Inject
    PushConsumers consumers;

    @Inject
    NodeIdentity node;

    @Inject
    Connections connections;

    @Inject
    ChatDelivery chatDelivery;

    @Inject
    GroupFanout groupFanout;

    private DefaultMQPushConsumer consumer;

    @PostConstruct
    void start() {
        consumer = consumers.start(ConsumerSpec.of("roost-deliveries-node-" + node.nodeId(), Delivery.TOPIC,
                "node-" + node.nodeId()), messages -> messages.forEach(m -> {
                    String body = new String(m.getBody(), StandardCharsets.UTF_8);
                    if (GroupForward.isGroupForward(body)) {
                        groupFanout.received(body);
                        return;
                    }
                    Forwarded f = Forwarded.parse(body);
                    for (int i = 0; i < f.connectionIds().size(); i++) {
                        if (f.chat() == null) {
                            connections.send(f.connectionIds().get(i), f.frame());
                        } else {
                            chatDelivery.deliverHere(f.connectionIds().get(i), f.owners().get(i), f.chat().from(), f.chat().to(),
                                    f.chat().seq(), f.frame());
                        }
                    }
                }));
    }

    @PreDestroy
    void stop() {
        consumer.shutdown();
    }
}
