package io.roost.room;

import io.roost.platform.messaging.TopicDeclaration;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Set;

/** The room module's RocketMQ topic: room events (opened, closed, viewers, counts) for back ends and dashboards. */
@ApplicationScoped
public class RoomTopics implements TopicDeclaration {

    @Override
    public Set<String> topics() {
        return Set.of(LiveRooms.EVENTS_TOPIC);
    }
}
