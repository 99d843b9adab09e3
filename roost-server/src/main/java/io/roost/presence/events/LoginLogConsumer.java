package io.roost.presence.events;

import io.roost.platform.json.Jsonp;
import io.roost.platform.messaging.ConsumerSpec;
import io.roost.platform.messaging.MessageIds;
import io.roost.platform.messaging.PushConsumers;
import io.roost.presence.session.DeviceSessions;
import io.roost.presence.store.LoginLogStore;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.ejb.DependsOn;
import jakarta.ejb.EJB;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.transaction.Transactional;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
        consumer = consumers.start(new ConsumerSpec(GROUP, DeviceSessions.LOGIN_EVENTS_TOPIC, "*", 64, 2), writer::write);
    }

    @PreDestroy
    void stop() {
        consumer.shutdown();
    }

    /**
     * The transactional part: one batch, one multi-row statement. The outbox id is the row id, so
     * a redelivered message inserts nothing ({@code ON CONFLICT DO NOTHING}) — no separate
     * consumed-message bookkeeping needed.
     */
    @ApplicationScoped
    public static class Writer {

        @EJB
        LoginLogStore store;

        @Transactional
        public void write(List<MessageExt> messages) {
            List<LoginLogStore.Row> rows = new ArrayList<>(messages.size());
            for (MessageExt m : messages) {
                JsonObject o = Jsonp.PROVIDER.createReader(new StringReader(new String(m.getBody(), StandardCharsets.UTF_8))).readObject();
                rows.add(new LoginLogStore.Row(Long.parseLong(MessageIds.of(m)), o.getJsonNumber("uid").longValue(),
                        o.getString("event"), o.getString("deviceType"), o.getString("deviceId", null), o.getInt("nodeId"),
                        o.getString("connectionId"), o.getString("reason", null), o.getString("at")));
            }
            store.insertAll(rows);
        }
    }
}
