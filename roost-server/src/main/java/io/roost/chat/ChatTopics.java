package io.roost.chat;

import io.roost.platform.messaging.TopicDeclaration;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Set;

/**
 * The chat module's RocketMQ topics: every stored message, for downstream consumers (search,
 * analytics), and the offline pushes, for an external push gateway (APNs, FCM, SMS).
 */
@ApplicationScoped
public class ChatTopics implements TopicDeclaration {

    @Override
    public Set<String> topics() {
        return Set.of(ChatService.EVENTS_TOPIC, OfflinePushes.TOPIC);
    }
}
