package io.roost.presence;

import io.roost.platform.store.SqlTimes;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.Query;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;

/** Read side of MQTT client presence: state, connections, per-group numbers, trajectories. */
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

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    public Optional<Client> client(String clientId) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery(
                        "SELECT client_id, group_id, online, online_since, latest_channel_id FROM mqtt_client WHERE client_id = ?1")
                .setParameter(1, clientId).getResultList();
        if (rows.isEmpty()) {
            return Optional.empty();
        }
        Object[] c = rows.get(0);
        String latest = (String) c[4];
        @SuppressWarnings("unchecked")
        List<Object[]> conns = em.createNativeQuery("""
                        SELECT channel_id, client_ip, connect_time, disconnect_time, tcpclean_time FROM mqtt_connection
                        WHERE client_id = ?1 ORDER BY connect_time DESC NULLS LAST, channel_id DESC LIMIT 1000""")
                .setParameter(1, clientId).getResultList();
        List<ConnectionView> views = conns.stream().map(r -> {
            Long connect = r[2] == null ? null : ((Number) r[2]).longValue();
            Long disconnect = r[3] == null ? null : ((Number) r[3]).longValue();
            Long tcpclean = r[4] == null ? null : ((Number) r[4]).longValue();
            Long closedAt = disconnect == null ? tcpclean : tcpclean == null ? disconnect
                    : Long.valueOf(Math.min(disconnect, tcpclean));
            String kind = tcpclean != null && disconnect != null ? "disconnect+tcpclean"
                    : tcpclean != null ? "tcpclean" : disconnect != null ? "disconnect" : null;
            boolean superseded = connect != null && latest != null && !latest.equals(r[0]);
            return new ConnectionView((String) r[0], (String) r[1], connect, closedAt, kind, superseded);
        }).toList();
        return Optional.of(new Client((String) c[0], (String) c[1], (Boolean) c[2],
                c[3] == null ? null : ((Number) c[3]).longValue(), views));
    }

    public List<ClientSummary> clients(String groupId, Boolean online, String afterClientId, int limit) {
        StringBuilder sql = new StringBuilder("SELECT client_id, group_id, online, online_since FROM mqtt_client WHERE client_id > :after");
        if (groupId != null) {
            sql.append(" AND group_id = :group");
        }
        if (online != null) {
            sql.append(" AND online = :online");
        }
        sql.append(" ORDER BY client_id LIMIT :limit");
        Query q = em.createNativeQuery(sql.toString()).setParameter("after", afterClientId == null ? "" : afterClientId)
                .setParameter("limit", limit);
        if (groupId != null) {
            q.setParameter("group", groupId);
        }
        if (online != null) {
            q.setParameter("online", online);
        }
        @SuppressWarnings("unchecked")
        List<Object[]> rows = q.getResultList();
        return rows.stream().map(r -> new ClientSummary((String) r[0], (String) r[1], (Boolean) r[2],
                r[3] == null ? null : ((Number) r[3]).longValue())).toList();
    }

    /** Online now (partial index), and connects/closes whose event time falls in [from, to]. */
    public GroupStats groupStats(String groupId, long from, long to) {
        long online = ((Number) em.createNativeQuery("SELECT count(*) FROM mqtt_client WHERE group_id = ?1 AND online")
                .setParameter(1, groupId).getSingleResult()).longValue();
        @SuppressWarnings("unchecked")
        List<Object[]> counts = em.createNativeQuery("""
                        SELECT event_type, count(*) FROM mqtt_event
                        WHERE group_id = ?1 AND event_time BETWEEN ?2 AND ?3 GROUP BY event_type""")
                .setParameter(1, groupId).setParameter(2, from).setParameter(3, to).getResultList();
        long connects = 0;
        long disconnects = 0;
        long tcpcleans = 0;
        for (Object[] r : counts) {
            long n = ((Number) r[1]).longValue();
            switch ((String) r[0]) {
                case "connect" -> connects = n;
                case "disconnect" -> disconnects = n;
                default -> tcpcleans = n;
            }
        }
        return new GroupStats(groupId, online, from, to, connects, disconnects, tcpcleans);
    }

    public List<Event> history(String clientId, long from, long to, int limit) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT channel_id, event_type, event_time, client_ip, received_at FROM mqtt_event
                        WHERE client_id = ?1 AND event_time BETWEEN ?2 AND ?3 ORDER BY event_time, received_at, channel_id, event_type LIMIT ?4""")
                .setParameter(1, clientId).setParameter(2, from).setParameter(3, to).setParameter(4, limit)
                .getResultList();
        return rows.stream().map(r -> new Event((String) r[0], (String) r[1], ((Number) r[2]).longValue(),
                (String) r[3], SqlTimes.of(r[4]))).toList();
    }

    /** Online clients per group id, largest first (the admin overview). */
    public java.util.Map<String, Long> onlineByGroup(int limit) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery(
                        "SELECT group_id, count(*) FROM mqtt_client WHERE online GROUP BY group_id ORDER BY 2 DESC, 1 LIMIT ?1")
                .setParameter(1, limit).getResultList();
        java.util.Map<String, Long> byGroup = new java.util.LinkedHashMap<>();
        rows.forEach(r -> byGroup.put((String) r[0], ((Number) r[1]).longValue()));
        return byGroup;
    }

    public long onlineTotal() {
        return ((Number) em.createNativeQuery("SELECT count(*) FROM mqtt_client WHERE online").getSingleResult()).longValue();
    }

    public long deadLetters() {
        return ((Number) em.createNativeQuery("SELECT count(*) FROM mqtt_dead_letter").getSingleResult()).longValue();
    }
}
