package io.roost.presence.events;

import io.roost.platform.json.Jsonp;
import io.roost.platform.messaging.ConsumerSpec;
import io.roost.platform.messaging.MessageIds;
import io.roost.platform.messaging.PushConsumers;
import io.roost.platform.store.SqlArrays;
import io.roost.presence.session.DeviceSessions;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.annotation.PreDestroy;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.transaction.Transactional;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;
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

        @Resource(lookup = "java:jboss/datasources/RoostDS")
        DataSource dataSource;

        @Transactional
        public void write(List<MessageExt> messages) {
            int n = messages.size();
            Long[] id = new Long[n];
            Long[] uid = new Long[n];
            String[] event = new String[n];
            String[] deviceType = new String[n];
            String[] deviceId = new String[n];
            Integer[] nodeId = new Integer[n];
            String[] connectionId = new String[n];
            String[] reason = new String[n];
            String[] at = new String[n]; // ISO-8601 instants: PostgreSQL reads them as timestamptz
            for (int i = 0; i < n; i++) {
                MessageExt m = messages.get(i);
                JsonObject o = Jsonp.PROVIDER.createReader(new StringReader(new String(m.getBody(), StandardCharsets.UTF_8))).readObject();
                id[i] = Long.parseLong(MessageIds.of(m));
                uid[i] = o.getJsonNumber("uid").longValue();
                event[i] = o.getString("event");
                deviceType[i] = o.getString("deviceType");
                deviceId[i] = o.getString("deviceId", null);
                nodeId[i] = o.getInt("nodeId");
                connectionId[i] = o.getString("connectionId");
                reason[i] = o.getString("reason", null);
                at[i] = o.getString("at");
            }
            try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement("""
                    INSERT INTO login_log (id, uid, event, device_type, device_id, node_id, connection_id, reason, at)
                    SELECT * FROM unnest(?::int8[], ?::int8[], ?::varchar[], ?::varchar[], ?::varchar[], ?::int4[], ?::varchar[],
                        ?::varchar[], ?::timestamptz[])
                    ON CONFLICT (id) DO NOTHING""")) {
                SqlArrays.bind(c, ps, id, uid, event, deviceType, deviceId, nodeId, connectionId, reason, at);
                ps.executeUpdate();
            } catch (SQLException e) {
                throw new IllegalStateException("login log insert failed: " + e.getMessage(), e);
            }
        }
    }
}
