package io.roost.identity;

import io.roost.platform.messaging.TopicDeclaration;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Set;

/** The identity module's RocketMQ topic: verification codes for an SMS gateway. */
@ApplicationScoped
public class IdentityTopics implements TopicDeclaration {

    @Override
    public Set<String> topics() {
        return Set.of(CodeDelivery.SMS_TOPIC);
    }
}
