package io.roost.presence;

import io.roost.platform.messaging.TopicDeclaration;
import io.roost.presence.mqtt.MqttSettings;
import io.roost.presence.session.DeviceSessions;
import io.roost.presence.store.RtcKickStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.HashSet;
import java.util.Set;

/**
 * The presence module's RocketMQ topics: kicks across nodes, the login log, RTC kick results,
 * and the MQTT service's status notifications it consumes.
 */
@ApplicationScoped
public class PresenceTopics implements TopicDeclaration {

    @Inject
    MqttSettings mqtt;

    @Override
    public Set<String> topics() {
        Set<String> topics = new HashSet<>(Set.of(DeviceSessions.KICK_TOPIC, DeviceSessions.LOGIN_EVENTS_TOPIC,
                RtcKickStore.TOPIC));
        if (mqtt.consumerEnabled()) {
            topics.add(mqtt.topic());
        }
        return topics;
    }
}
