package io.roost.admin;

import io.roost.platform.health.HealthService;
import io.roost.platform.messaging.PushConsumers;
import io.roost.platform.outbox.OutboxRelay;
import io.roost.room.LiveRooms;
import io.roost.presence.MqttPresence;
import io.roost.presence.RtcPresence;
import io.roost.presence.session.ClusterNode;
import io.roost.presence.session.DeviceSessions;
import io.roost.room.RoomTotals;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import io.roost.chat.ChatMeters;
import io.roost.platform.metrics.PlatformMeters;
import jakarta.inject.Inject;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The numbers an operator looks at first, gathered from each module's service. */
@ApplicationScoped
public class Overview {

    public record Numbers(OffsetDateTime at, long onlineUsers, Map<String, Long> onlineByDeviceType, long rtcChannels,
                          RtcPresence.Counts rtcOnline, long mqttOnline, Map<String, Long> mqttOnlineByGroup, long openRooms,
                          long roomViewers, long roomFans, List<TopRoom> topRooms, Map<String, Long> consumerLag,
                          long outboxBacklog, long deadLetters, boolean databaseUp, boolean brokerUp, List<ClusterNode> nodes) {
    }

    /** An open live room (ids as strings, as everywhere in the API). */
    public record TopRoom(String roomId, String sessionId, String anchorId, int online, int onlineFans) {
    }

    @Inject
    DeviceSessions sessions;

    @Inject
    RtcPresence rtc;

    @Inject
    MqttPresence mqtt;

    @Inject
    LiveRooms rooms;

    @Inject
    PushConsumers consumers;

    @EJB
    OutboxRelay outbox;

    @Inject
    HealthService health;

    @Inject
    ChatMeters chatMeters;

    @Inject
    PlatformMeters platformMeters;

    public Numbers now() {
        Map<String, Long> byType = new LinkedHashMap<>(sessions.onlineByDeviceType());
        long online = byType.remove("*");
        RtcPresence.Summary channels = rtc.summary();
        RoomTotals roomTotals = rooms.totals();
        HealthService.Report report = health.check();
        return new Numbers(OffsetDateTime.now(), online, byType, channels.activeChannels(), channels.online(), mqtt.onlineTotal(),
                mqtt.onlineByGroup(20), roomTotals.openSessions(), roomTotals.viewers(), roomTotals.fans(), rooms.openRooms(10).stream()
                        .map(r -> new TopRoom(r.roomId(), Long.toString(r.sessionId()), Long.toString(r.anchorId()), r.online(), r.onlineFans()))
                        .toList(),
                consumers.lag(), outbox.backlog(), mqtt.deadLetters(), up(report, "database"), up(report, "rocketmq"),
                sessions.nodes());
    }

    /** The numbers the dashboard charts, as (metric, value): sampled every 10 s. */
    public Map<String, Long> sample() {
        Map<String, Long> m = new LinkedHashMap<>();
        Map<String, Long> byType = sessions.onlineByDeviceType();
        m.put("online_users", byType.getOrDefault("*", 0L));
        byType.forEach((type, n) -> {
            if (!type.equals("*")) {
                m.put("online_" + type, n);
            }
        });
        RtcPresence.Summary channels = rtc.summary();
        m.put("rtc_channels", channels.activeChannels());
        m.put("rtc_members", channels.online().total());
        m.put("mqtt_online", mqtt.onlineTotal());
        RoomTotals roomTotals = rooms.totals();
        m.put("rooms_open", roomTotals.openSessions());
        m.put("room_viewers", roomTotals.viewers());
        m.put("room_fans", roomTotals.fans());
        // the gauges' last readings (each read every 10 s by its module's timer): no count of our own
        m.put("outbox_backlog", platformMeters.outboxBacklog());
        m.put("chat_offline_backlog", chatMeters.offlineBacklog());
        return m;
    }

    private static boolean up(HealthService.Report report, String check) {
        HealthService.Check c = report.checks().get(check);
        return c != null && c.up();
    }
}
