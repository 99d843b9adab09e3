package io.roost.presence;

import io.roost.presence.store.MqttStore;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Read side of MQTT client presence: state, connections, per-group numbers, trajectories. The
 * reads run in the caller's transaction if there is one, else in none.
 */
@ApplicationScoped
public class MqttPresence {

    public record ConnectionView(String channelId, String clientIp, Long connectedAt, Long closedAt, String closeKind,
                                 boolean superseded) {
    }

    public record Client(String clientId, String groupId, boolean online, Long onlineSince,
                         List<ConnectionView> connections) {
    }

    public record ClientSummary(String clientId, String groupId, boolean online, Long onlineSince) {
    }

    public record GroupStats(String groupId, long online, long from, long to, long connects, long disconnects,
                             long tcpcleans) {
    }

    public record Event(String channelId, String eventType, long time, String clientIp, OffsetDateTime receivedAt) {
    }

    @EJB
    MqttStore store;

    public Optional<Client> client(String clientId) {
        Optional<MqttStore.ClientRow> row = store.client(clientId);
        if (row.isEmpty()) {
            return Optional.empty();
        }
        MqttStore.ClientRow c = row.get();
        String latest = c.latestChannelId();
        List<ConnectionView> views = store.connections(clientId).stream().map(r -> {
            Long connect = r.connectTime();
            Long disconnect = r.disconnectTime();
            Long tcpclean = r.tcpcleanTime();
            Long closedAt = disconnect == null ? tcpclean : tcpclean == null ? disconnect
                    : Long.valueOf(Math.min(disconnect, tcpclean));
            String kind = tcpclean != null && disconnect != null ? "disconnect+tcpclean"
                    : tcpclean != null ? "tcpclean" : disconnect != null ? "disconnect" : null;
            boolean superseded = connect != null && latest != null && !latest.equals(r.channelId());
            return new ConnectionView(r.channelId(), r.clientIp(), connect, closedAt, kind, superseded);
        }).toList();
        return Optional.of(new Client(c.clientId(), c.groupId(), c.online(), c.onlineSince(), views));
    }

    public List<ClientSummary> clients(String groupId, Boolean online, String afterClientId, int limit) {
        return store.clients(groupId, online, afterClientId, limit);
    }

    /** Online now (partial index), and connects/closes whose event time falls in [from, to]. */
    public GroupStats groupStats(String groupId, long from, long to) {
        return store.groupStats(groupId, from, to);
    }

    public List<Event> history(String clientId, long from, long to, int limit) {
        return store.history(clientId, from, to, limit);
    }

    /** Online clients per group id, largest first (the admin overview). */
    public Map<String, Long> onlineByGroup(int limit) {
        return store.onlineByGroup(limit);
    }

    public long onlineTotal() {
        return store.onlineTotal();
    }

    public long deadLetters() {
        return store.deadLetters();
    }
}
