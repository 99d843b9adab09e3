package io.roost.gateway;

import io.roost.platform.messaging.TopicDeclaration;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Set;

/** The gateway's RocketMQ topic: frames for devices on another node. */
@ApplicationScoped
public class GatewayTopics implements TopicDeclaration {

    @Override
    public Set<String> topics() {
        return Set.of(Delivery.TOPIC);
    }
}
