package io.roost.presence.events;

import io.roost.platform.json.Jsonp;
import io.roost.platform.messaging.ConsumedMessages;
import io.roost.platform.messaging.ConsumerSpec;
import io.roost.platform.messaging.MessageIds;
import io.roost.platform.messaging.PushConsumers;
import io.roost.presence.session.DeviceSessions;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.List;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.common.message.MessageExt;

/** roost-login-events → login_log, once per message (the outbox id is the row id). */
@Singleton
@Startup
@DependsOn("DatabaseMigrator")
public class LoginLogConsumer {

    static final String GROUP = "roost-login-log";

    @Inject
    PushConsumers consumers;

    @Inject
    Writer writer;

    private DefaultMQPushConsumer consumer;

    @PostConstruct
    void start() {
        consumer = consumers.start(new ConsumerSpec(GROUP, DeviceSessions.LOGIN_EVENTS_TOPIC, "*", 32, 2), writer::write);
    }

    @PreDestroy
    void stop() {
        consumer.shutdown();
    }

    /** The transactional part: one batch, one transaction, duplicates skipped. */
    @ApplicationScoped
    public static class Writer {

        @PersistenceContext(unitName = "roost")
        EntityManager em;

        @Inject
        ConsumedMessages consumed;

        @Transactional
        public void write(List<MessageExt> messages) {
            for (MessageExt m : messages) {
                String id = MessageIds.of(m);
                if (!consumed.firstDelivery(GROUP, id)) {
                    continue;
                }
                JsonObject o = Jsonp.PROVIDER.createReader(new StringReader(new String(m.getBody(), StandardCharsets.UTF_8))).readObject();
                em.createNativeQuery("""
                                INSERT INTO login_log (id, uid, event, device_type, device_id, node_id, connection_id, reason, at)
                                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT (id) DO NOTHING""")
                        .setParameter(1, Long.parseLong(id))
                        .setParameter(2, o.getJsonNumber("uid").longValue())
                        .setParameter(3, o.getString("event"))
                        .setParameter(4, o.getString("deviceType"))
                        .setParameter(5, o.getString("deviceId", null))
                        .setParameter(6, o.getInt("nodeId"))
                        .setParameter(7, o.getString("connectionId"))
                        .setParameter(8, o.getString("reason", null))
                        .setParameter(9, OffsetDateTime.parse(o.getString("at").replace("Z", "+00:00")))
                        .executeUpdate();
            }
        }
    }
}
