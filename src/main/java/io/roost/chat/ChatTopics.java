package io.roost.chat;

import io.roost.platform.messaging.TopicDeclaration;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Set;

/** The chat module's RocketMQ topic: every stored message, for downstream consumers (search, analytics). */
@ApplicationScoped
public class ChatTopics implements TopicDeclaration {

    @Override
    public Set<String> topics() {
        return Set.of(ChatService.EVENTS_TOPIC);
    }
}
