package io.roost.gateway.events;

import io.roost.platform.json.Jsonp;
import io.roost.platform.config.NodeIdentity;
import io.roost.platform.messaging.ConsumerSpec;
import io.roost.platform.messaging.PushConsumers;
import io.roost.presence.session.DeviceSessions;
import io.roost.presence.session.SessionEnded;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;

/**
 * Kicks that another node decided for a connection held here arrive as RocketMQ messages tagged
 * with this node's id; each node consumes its own tag in its own group. Closing a connection twice
 * is harmless, so redelivery needs no de-duplication.
 */
@Singleton
@Startup
@DependsOn("DatabaseMigrator")
public class SessionKickConsumer {

    @Inject
    PushConsumers consumers;

    @Inject
    NodeIdentity node;

    @Inject
    Event<SessionEnded> ended;

    private DefaultMQPushConsumer consumer;

    @PostConstruct
    void start() {
        consumer = consumers.start(ConsumerSpec.of("roost-session-kicks-node-" + node.nodeId(), DeviceSessions.KICK_TOPIC,
                "node-" + node.nodeId()), messages -> messages.forEach(m -> {
                    JsonObject o = Jsonp.PROVIDER.createReader(new StringReader(new String(m.getBody(), StandardCharsets.UTF_8)))
                            .readObject();
                    ended.fire(new SessionEnded(o.getInt("nodeId"), o.getString("connectionId"),
                            o.getJsonNumber("uid").longValue(), o.getString("deviceType"), o.getString("reason")));
                }));
    }

    @PreDestroy
    void stop() {
        consumer.shutdown();
    }
}
