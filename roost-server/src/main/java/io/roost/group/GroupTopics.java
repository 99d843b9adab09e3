package io.roost.group;

import io.roost.platform.messaging.TopicDeclaration;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Set;

/** The group module's RocketMQ topic: group events (notices to members). */
@ApplicationScoped
public class GroupTopics implements TopicDeclaration {

    @Override
    public Set<String> topics() {
        return Set.of(GroupService.EVENTS_TOPIC);
    }
}
