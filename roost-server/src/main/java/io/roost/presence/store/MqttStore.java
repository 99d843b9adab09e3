package io.roost.presence.store;

import io.roost.platform.metrics.StoreTimed;
import io.roost.platform.store.SqlArrays;
import io.roost.platform.store.SqlTimes;
import io.roost.presence.MqttPresence;
import io.roost.presence.mqtt.ConnectionRules;
import io.roost.presence.mqtt.MqttStatusEvent;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.Query;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * MQTT presence rows. One batch, one transaction: take an advisory lock per client (in key
 * order, so batches never deadlock); then, in one statement, merge the facts into the connection
 * rows, append to the history the facts that were new, create the new clients and move each
 * client whose state changed. Because every writer of a client's rows (ingestion and the purge)
 * holds its lock until commit, that statement (a new snapshot) sees every connection fact
 * committed before, and no one changes its rows until it commits — no read-modify-write race
 * across consumers or nodes. The read side (clients, connections, history, numbers per group) is
 * what {@link MqttPresence} offers.
 */
@StoreTimed
@Stateless
public class MqttStore {

    /** A message that can never be applied, to be kept with its reason. */
    public record DeadLetter(String messageId, String tag, String body, String reason) {
    }

    /** A connection, in client id then channel id order (the order rows are written in). */
    private record ConnectionKey(String clientId, String channelId) implements Comparable<ConnectionKey> {
        @Override
        public int compareTo(ConnectionKey o) {
            int c = clientId.compareTo(o.clientId);
            return c != 0 ? c : channelId.compareTo(o.channelId);
        }
    }

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    /**
     * What a batch's events did: how many brought a fact new to their connection (the rest were
     * known: duplicates), and how many of those were of a connection other than its client's newest
     * connect (stale: they change no client's state).
     */
    public record Applied(int newFacts, int stale) {
        public static final Applied NONE = new Applied(0, 0);
    }

    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public Applied apply(List<MqttStatusEvent> events, List<DeadLetter> deadLetters) {
        try (Connection c = dataSource.getConnection()) {
            Applied applied = events.isEmpty() ? Applied.NONE : applyEvents(c, events);
            if (!deadLetters.isEmpty()) {
                try (PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO mqtt_dead_letter (message_id, tag, body, reason) VALUES (?, ?, ?, ?)")) {
                    for (DeadLetter d : deadLetters) {
                        ps.setString(1, d.messageId());
                        ps.setString(2, d.tag());
                        ps.setString(3, d.body());
                        ps.setString(4, d.reason().length() > 500 ? d.reason().substring(0, 500) : d.reason());
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
            }
            return applied;
        } catch (SQLException e) {
            throw new IllegalStateException("MQTT batch failed: " + e.getMessage(), e);
        }
    }

    /** First key of the two-key advisory locks that stand for MQTT clients ("MQTT"). */
    static final int CLIENT_LOCKS = 0x4D515454;

    /**
     * The advisory lock keys of these clients, distinct and ascending (the order every transaction
     * takes them in). A client's key is its id's {@link String#hashCode()}, the hash the lanes use:
     * two clients sharing a key only wait for each other.
     */
    static Integer[] clientLockKeys(Collection<String> clientIds) {
        // sorted first: distinct() on a sorted stream compares neighbours instead of filling a HashSet
        return clientIds.stream().map(String::hashCode).sorted().distinct().toArray(Integer[]::new);
    }

    /** Takes the advisory locks of these clients, in key order, until the transaction ends. */
    private static void lockClients(Connection c, Collection<String> clientIds) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT count(*) FROM (SELECT pg_advisory_xact_lock(" + CLIENT_LOCKS + ", k) FROM unnest(?::int4[]) AS k) l")) {
            SqlArrays.bind(c, ps, (Object) clientLockKeys(clientIds));
            ps.executeQuery().close();
        }
    }

    private static Applied applyEvents(Connection c, List<MqttStatusEvent> events) throws SQLException {
        // Facts per connection, merged in memory first: one row touched once per statement. The
        // merge keeps the first fact of each kind, which is also each kind's history candidate.
        Map<String, String> groups = new TreeMap<>();
        Map<ConnectionKey, ConnectionRules.Connection> merged = new HashMap<>();
        Map<ConnectionKey, String> ips = new HashMap<>();
        for (MqttStatusEvent e : events) {
            groups.put(e.clientId(), e.groupId());
            ConnectionKey key = new ConnectionKey(e.clientId(), e.channelId());
            merged.merge(key, ConnectionRules.Connection.empty(e.channelId()).with(e.type(), e.time()),
                    (old, add) -> old.with(e.type(), e.time()));
            if (e.clientIp() != null) { // every event of a connection carries that TCP connection's address
                ips.putIfAbsent(key, e.clientIp());
            }
        }
        List<ConnectionKey> keys = new ArrayList<>(merged.keySet());
        keys.sort(null);

        // 1. Serialize with every other transaction on these clients (another node's, and the
        // purge; on one node the lanes already keep batches apart): a transaction-scoped advisory
        // lock per client, taken in key order so two transactions never deadlock. Row locks did the
        // same but wrote every locked row's page and a WAL record: about a sixth of the database's
        // time per event.
        lockClients(c, groups.keySet());

        int n = keys.size();
        String[] client = new String[n];
        String[] group = new String[n];
        String[] channel = new String[n];
        Long[] connect = new Long[n];
        String[] ip = new String[n];
        Long[] disconnect = new Long[n];
        Long[] tcpclean = new Long[n];
        for (int i = 0; i < n; i++) {
            ConnectionKey key = keys.get(i);
            ConnectionRules.Connection facts = merged.get(key);
            client[i] = key.clientId();
            group[i] = groups.get(key.clientId());
            channel[i] = key.channelId();
            connect[i] = facts.connectTime();
            ip[i] = ips.get(key);
            disconnect[i] = facts.disconnectTime();
            tcpclean[i] = facts.tcpcleanTime();
        }

        // 2. One statement, one snapshot taken after the locks (every earlier writer of these
        // clients has committed, and none can start before this transaction ends). So each row is
        // found once by its key and then updated by its address (ctid) — no second index probe, no
        // ON CONFLICT check — and a row not found is inserted outright: nobody else can insert it
        // meanwhile (if something did, the unique index fails the batch and RocketMQ redelivers it).
        // Merge the facts; append to the history the events whose fact the connection row did not
        // have yet — and, when its time is within the purge horizon (not later than every purged
        // connection's times, see V13), that the history itself does not have: the row may be gone,
        // or re-created by a late duplicate after its purge without the facts the purge took. Then
        // create the clients not seen before and move each client whose newest connect or its
        // openness changed. It answers how many facts were new (the history's rows) and how many
        // of those were of a connection that is not its client's newest connect after the batch.
        // The client row holds the state derived from its connections at its last commit, so
        // only the connections changed now can change it (ConnectionRules: the newest connect
        // decides, online iff that connection is open).
        try (PreparedStatement ps = c.prepareStatement("""
                WITH batch AS (
                    SELECT * FROM unnest(?::varchar[], ?::varchar[], ?::varchar[], ?::int8[], ?::varchar[], ?::int8[], ?::int8[])
                        AS e(c, g, ch, ct, ip, d, t)),
                facts AS (
                    SELECT b.*, CASE WHEN b.d IS NOT NULL OR b.t IS NOT NULL THEN now() END AS closed_at,
                           k.ctid AS tid, k.connect_time AS kc, k.disconnect_time AS kd, k.tcpclean_time AS kt
                    FROM batch b LEFT JOIN mqtt_connection k ON k.client_id = b.c AND k.channel_id = b.ch),
                changed AS (
                    UPDATE mqtt_connection k SET
                        connect_time = coalesce(k.connect_time, f.ct),
                        client_ip = coalesce(k.client_ip, f.ip),
                        disconnect_time = coalesce(k.disconnect_time, f.d),
                        tcpclean_time = coalesce(k.tcpclean_time, f.t),
                        closed_at = coalesce(k.closed_at, f.closed_at)
                    FROM facts f
                    WHERE k.ctid = f.tid
                      AND ((k.connect_time IS NULL AND f.ct IS NOT NULL) OR (k.client_ip IS NULL AND f.ip IS NOT NULL)
                           OR (k.disconnect_time IS NULL AND f.d IS NOT NULL) OR (k.tcpclean_time IS NULL AND f.t IS NOT NULL))
                    RETURNING k.client_id, k.channel_id, k.connect_time, k.disconnect_time IS NULL AND k.tcpclean_time IS NULL AS open),
                added AS (
                    INSERT INTO mqtt_connection (client_id, channel_id, connect_time, client_ip, disconnect_time, tcpclean_time, closed_at)
                    SELECT f.c, f.ch, f.ct, f.ip, f.d, f.t, f.closed_at
                    FROM facts f WHERE f.tid IS NULL
                    RETURNING client_id, channel_id, connect_time, disconnect_time IS NULL AND tcpclean_time IS NULL AS open),
                history AS (
                    -- each connection's facts in the batch, one row per kind, unless its row had that fact already
                    INSERT INTO mqtt_event (client_id, group_id, channel_id, event_type, event_time, client_ip)
                    SELECT f.c, f.g, f.ch, v.type, v.time, f.ip
                    FROM facts f, LATERAL (VALUES ('connect'::varchar, f.ct, f.kc), ('disconnect', f.d, f.kd),
                                                  ('tcpclean', f.t, f.kt)) AS v(type, time, had)
                    WHERE v.time IS NOT NULL AND v.had IS NULL
                      AND (v.time > (SELECT event_time FROM mqtt_purge_horizon) OR NOT EXISTS (
                          SELECT 1 FROM mqtt_event h WHERE h.client_id = f.c AND h.event_time = v.time
                                                       AND h.channel_id = f.ch AND h.event_type = v.type))
                    RETURNING client_id, channel_id),
                newest AS (
                    SELECT DISTINCT ON (client_id) client_id, channel_id, connect_time, open
                    FROM (SELECT * FROM changed UNION ALL SELECT * FROM added) m
                    WHERE connect_time IS NOT NULL ORDER BY client_id, connect_time DESC, channel_id DESC),
                clients AS (
                    SELECT b.c, b.g, m.ctid AS tid, m.latest_connect_time, m.latest_channel_id, m.online
                    FROM (SELECT DISTINCT c, g FROM batch) b LEFT JOIN mqtt_client m ON m.client_id = b.c),
                new_clients AS (
                    INSERT INTO mqtt_client (client_id, group_id, latest_connect_time, latest_channel_id, online, online_since)
                    SELECT l.c, l.g, n.connect_time, n.channel_id, coalesce(n.open, false), CASE WHEN n.open THEN n.connect_time END
                    FROM clients l LEFT JOIN newest n ON n.client_id = l.c
                    WHERE l.tid IS NULL),
                moved AS (
                    UPDATE mqtt_client m SET latest_connect_time = n.connect_time, latest_channel_id = n.channel_id,
                        online = n.open, online_since = CASE WHEN n.open THEN n.connect_time END, updated_at = now()
                    FROM clients l JOIN newest n ON n.client_id = l.c
                    WHERE m.ctid = l.tid
                      AND (l.latest_connect_time IS NULL
                           OR (n.connect_time, n.channel_id) > (l.latest_connect_time, l.latest_channel_id)
                           OR (n.channel_id = l.latest_channel_id AND n.open <> l.online))),
                latest AS (
                    -- each client's newest connect after the batch: the batch's if it is newer than the row's
                    SELECT l.c, CASE WHEN n.connect_time IS NOT NULL AND (l.latest_connect_time IS NULL
                                          OR (n.connect_time, n.channel_id) > (l.latest_connect_time, l.latest_channel_id))
                                     THEN n.channel_id ELSE l.latest_channel_id END AS ch
                    FROM clients l LEFT JOIN newest n ON n.client_id = l.c)
                SELECT count(*), count(*) FILTER (WHERE a.ch IS NOT NULL AND a.ch <> h.channel_id)
                FROM history h LEFT JOIN latest a ON a.c = h.client_id""")) {
            SqlArrays.bind(c, ps, client, group, channel, connect, ip, disconnect, tcpclean);
            try (var rs = ps.executeQuery()) {
                rs.next();
                return new Applied(rs.getInt(1), rs.getInt(2));
            }
        }
    }

    /**
     * Forgets closed connections older than the retention, except each client's newest connect
     * (it decides the client's state, and keeps rejecting that channel's late duplicates). The
     * purge horizon rises to the latest time the forgotten rows held, in the same statement. The
     * rows' clients are locked first, as ingestion locks them (which finds a row once and then
     * updates it by its address), and the conditions are checked again under the locks.
     * At most {@code limit} rows, so at most {@code limit} locks: keep it within the lock table.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int purgeClosedConnections(Duration retention, int limit) {
        try (Connection c = dataSource.getConnection()) {
            List<String> clients = new ArrayList<>();
            List<String> rows = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("""
                    SELECT k.client_id, k.ctid::text FROM mqtt_connection k JOIN mqtt_client m ON m.client_id = k.client_id
                    WHERE k.closed_at < now() - make_interval(secs => ?) AND m.latest_channel_id IS DISTINCT FROM k.channel_id
                    LIMIT ?""")) {
                ps.setDouble(1, retention.toMillis() / 1000.0);
                ps.setInt(2, limit);
                try (var rs = ps.executeQuery()) {
                    while (rs.next()) {
                        clients.add(rs.getString(1));
                        rows.add(rs.getString(2));
                    }
                }
            }
            if (rows.isEmpty()) {
                return 0;
            }
            lockClients(c, clients);
            try (PreparedStatement ps = c.prepareStatement("""
                    WITH gone AS (
                        DELETE FROM mqtt_connection k USING mqtt_client m
                        WHERE k.ctid = ANY(?::varchar[]::tid[]) AND m.client_id = k.client_id
                          AND k.closed_at < now() - make_interval(secs => ?) AND m.latest_channel_id IS DISTINCT FROM k.channel_id
                        RETURNING greatest(k.connect_time, k.disconnect_time, k.tcpclean_time) AS latest)
                    UPDATE mqtt_purge_horizon SET event_time = greatest(event_time, (SELECT max(latest) FROM gone))
                    RETURNING (SELECT count(*) FROM gone)""")) {
                SqlArrays.bind(c, ps, (Object) rows.toArray(String[]::new));
                ps.setDouble(2, retention.toMillis() / 1000.0);
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getInt(1);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("MQTT connection purge failed: " + e.getMessage(), e);
        }
    }

    /** Drops history older than {@code days}, in bounded batches so ingestion is never blocked. */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int purgeHistory(int days, int limit) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("""
                     DELETE FROM mqtt_event WHERE ctid = ANY(ARRAY(
                         SELECT ctid FROM mqtt_event WHERE received_at < now() - make_interval(days => ?) LIMIT ?))""")) {
            ps.setInt(1, days);
            ps.setInt(2, limit);
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("MQTT history purge failed: " + e.getMessage(), e);
        }
    }

    // ---- read side, for MqttPresence ----
    // Through the persistence context, in the caller's transaction if there is one; a read never
    // begins one (SUPPORTS).

    /** A client's row: its state and the channel of its newest connect. */
    public record ClientRow(String clientId, String groupId, boolean online, Long onlineSince, String latestChannelId) {
    }

    /** A connection's facts as stored (event times; null where a fact is not known). */
    public record ConnectionRow(String channelId, String clientIp, Long connectTime, Long disconnectTime,
                                Long tcpcleanTime) {
    }

    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public Optional<ClientRow> client(String clientId) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery(
                        "SELECT client_id, group_id, online, online_since, latest_channel_id FROM mqtt_client WHERE client_id = ?1")
                .setParameter(1, clientId).getResultList();
        return rows.stream().findFirst().map(c -> new ClientRow((String) c[0], (String) c[1], (Boolean) c[2], longOrNull(c[3]),
                (String) c[4]));
    }

    /** A client's connections, newest connect first (at most 1,000). */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public List<ConnectionRow> connections(String clientId) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT channel_id, client_ip, connect_time, disconnect_time, tcpclean_time FROM mqtt_connection
                        WHERE client_id = ?1 ORDER BY connect_time DESC NULLS LAST, channel_id DESC LIMIT 1000""")
                .setParameter(1, clientId).getResultList();
        return rows.stream().map(r -> new ConnectionRow((String) r[0], (String) r[1], longOrNull(r[2]), longOrNull(r[3]),
                longOrNull(r[4]))).toList();
    }

    /** Clients in id order after {@code afterClientId}; {@code groupId}/{@code online} filter when not null. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public List<MqttPresence.ClientSummary> clients(String groupId, Boolean online, String afterClientId, int limit) {
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
        return rows.stream().map(r -> new MqttPresence.ClientSummary((String) r[0], (String) r[1], (Boolean) r[2],
                longOrNull(r[3]))).toList();
    }

    /** Online now (partial index), and connects/closes whose event time falls in [from, to]. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public MqttPresence.GroupStats groupStats(String groupId, long from, long to) {
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
        return new MqttPresence.GroupStats(groupId, online, from, to, connects, disconnects, tcpcleans);
    }

    /** A client's history in [from, to], oldest first. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public List<MqttPresence.Event> history(String clientId, long from, long to, int limit) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT channel_id, event_type, event_time, client_ip, received_at FROM mqtt_event
                        WHERE client_id = ?1 AND event_time BETWEEN ?2 AND ?3 ORDER BY event_time, received_at, channel_id, event_type LIMIT ?4""")
                .setParameter(1, clientId).setParameter(2, from).setParameter(3, to).setParameter(4, limit)
                .getResultList();
        return rows.stream().map(r -> new MqttPresence.Event((String) r[0], (String) r[1], ((Number) r[2]).longValue(),
                (String) r[3], SqlTimes.of(r[4]))).toList();
    }

    /** Online clients per group id, largest first. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public Map<String, Long> onlineByGroup(int limit) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery(
                        "SELECT group_id, count(*) FROM mqtt_client WHERE online GROUP BY group_id ORDER BY 2 DESC, 1 LIMIT ?1")
                .setParameter(1, limit).getResultList();
        Map<String, Long> byGroup = new LinkedHashMap<>();
        rows.forEach(r -> byGroup.put((String) r[0], ((Number) r[1]).longValue()));
        return byGroup;
    }

    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public long onlineTotal() {
        return ((Number) em.createNativeQuery("SELECT count(*) FROM mqtt_client WHERE online").getSingleResult()).longValue();
    }

    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public long deadLetters() {
        return ((Number) em.createNativeQuery("SELECT count(*) FROM mqtt_dead_letter").getSingleResult()).longValue();
    }

    private static Long longOrNull(Object value) {
        return value == null ? null : ((Number) value).longValue();
    }
}
