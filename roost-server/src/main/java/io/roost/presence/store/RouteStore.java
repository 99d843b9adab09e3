package io.roost.presence.store;

import io.roost.platform.metrics.StoreTimed;
import io.roost.presence.session.ClusterNode;
import io.roost.presence.session.DeviceRoute;
import io.roost.presence.session.RouteTarget;
import io.roost.platform.store.CustomPlans;
import io.roost.platform.store.Jdbc;
import io.roost.platform.store.SqlArrays;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import javax.sql.DataSource;

/** The device route table: one row per live device session. */
@StoreTimed
@Stateless
public class RouteStore {

    /** A user's new presence version and the routes it describes. */
    public record PresenceVersion(long version, List<DeviceRoute> routes) {
    }

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    /**
     * Takes the (uid, deviceType, sessionKey) slot for each connection in {@code wanted}; returns,
     * in the same order, the holder each one met (empty: the slot was free). A free slot is taken by
     * an insert (which waits for a concurrent, uncommitted insert of the same slot). A held slot is
     * locked: with {@code replace} the holder is replaced in that same statement and returned so it
     * can be kicked; without, the holder is returned and nothing changes (the login is refused).
     * Two logins of one slot at the same moment serialize on the row or on the insert's unique
     * check, so exactly one ends holding it.
     *
     * <p>The slots are taken in key order (a stable sort keeps the arrival order of two logins of
     * one slot, so the later one meets the earlier as its holder), which is also the order in which
     * concurrent batches lock rows: they wait for each other but do not deadlock. The free slots go
     * in one multi-row insert; only those found held are handled one by one.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public List<Optional<DeviceRoute>> claimAll(List<DeviceRoute> wanted, List<Boolean> replace) {
        List<Integer> order = new ArrayList<>(IntStream.range(0, wanted.size()).boxed().toList());
        order.sort(Comparator.comparing((Integer i) -> wanted.get(i).uid())
                .thenComparing(i -> wanted.get(i).deviceType()).thenComparing(i -> wanted.get(i).sessionKey()));
        List<Optional<DeviceRoute>> holders = new ArrayList<>(Collections.nCopies(wanted.size(), Optional.<DeviceRoute>empty()));
        try (Connection c = dataSource.getConnection()) {
            Set<String> inserted = new HashSet<>();
            try (PreparedStatement ps = CustomPlans.prepare(c, """
                    INSERT INTO presence_device_route (uid, device_type, session_key, node_id, connection_id, device_id, epoch)
                    SELECT uid, device_type, session_key, node_id, connection_id, device_id, epoch
                    FROM unnest(?::int8[], ?::varchar[], ?::varchar[], ?::int4[], ?::varchar[], ?::varchar[], ?::int8[])
                        WITH ORDINALITY AS w(uid, device_type, session_key, node_id, connection_id, device_id, epoch, n)
                    ORDER BY n
                    ON CONFLICT (uid, device_type, session_key) DO NOTHING RETURNING connection_id""")) {
                List<DeviceRoute> sorted = order.stream().map(wanted::get).toList();
                SqlArrays.bind(c, ps, sorted.stream().map(DeviceRoute::uid).toArray(Long[]::new),
                        sorted.stream().map(DeviceRoute::deviceType).toArray(String[]::new),
                        sorted.stream().map(DeviceRoute::sessionKey).toArray(String[]::new),
                        sorted.stream().map(DeviceRoute::nodeId).toArray(Integer[]::new),
                        sorted.stream().map(DeviceRoute::connectionId).toArray(String[]::new),
                        sorted.stream().map(DeviceRoute::deviceId).toArray(String[]::new),
                        sorted.stream().map(DeviceRoute::epoch).toArray(Long[]::new));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        inserted.add(rs.getString(1));
                    }
                }
            }
            for (int i : order) {
                if (!inserted.contains(wanted.get(i).connectionId())) {
                    holders.set(i, claimHeld(c, wanted.get(i), replace.get(i)));
                }
            }
            return holders;
        } catch (SQLException e) {
            throw new IllegalStateException("route claim failed: " + e.getMessage(), e);
        }
    }

    /** A slot that was held at the multi-row insert: replace or lock its holder (insert again if it left meanwhile). */
    private static Optional<DeviceRoute> claimHeld(Connection c, DeviceRoute wanted, boolean replace) throws SQLException {
        for (int attempt = 0; attempt < 5; attempt++) {
            Optional<DeviceRoute> holder = replace ? replaceHolder(c, wanted) : lockHolder(c, wanted);
            if (holder.isPresent()) {
                return holder;
            }
            // The holder left between the insert and the lock: take the free slot.
            try (PreparedStatement ps = CustomPlans.prepare(c, """
                    INSERT INTO presence_device_route (uid, device_type, session_key, node_id, connection_id, device_id, epoch)
                    VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (uid, device_type, session_key) DO NOTHING""")) {
                bindSlot(ps, 1, wanted);
                bindHolder(ps, 4, wanted);
                if (ps.executeUpdate() == 1) {
                    return Optional.empty();
                }
            }
        }
        throw new IllegalStateException("route slot contended beyond retries");
    }

    private static Optional<DeviceRoute> lockHolder(Connection c, DeviceRoute wanted) throws SQLException {
        try (PreparedStatement ps = CustomPlans.prepare(c, SELECT + " WHERE uid = ? AND device_type = ? AND session_key = ? FOR UPDATE")) {
            bindSlot(ps, 1, wanted);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(route(rs)) : Optional.empty();
            }
        }
    }

    /**
     * Locks the slot's holder and hands the slot to {@code wanted} in one statement; returns the
     * holder as it was (the locking subquery reads the latest committed version of the row).
     */
    private static Optional<DeviceRoute> replaceHolder(Connection c, DeviceRoute wanted) throws SQLException {
        try (PreparedStatement ps = CustomPlans.prepare(c, """
                UPDATE presence_device_route r SET node_id = ?, connection_id = ?, device_id = ?, epoch = ?,
                    login_at = now(), last_heartbeat_at = now()
                FROM (""" + SELECT + """
                 WHERE uid = ? AND device_type = ? AND session_key = ? FOR UPDATE) old
                WHERE r.uid = old.uid AND r.device_type = old.device_type AND r.session_key = old.session_key
                RETURNING old.uid, old.device_type, old.session_key, old.node_id, old.connection_id, old.device_id, old.epoch,
                    old.login_at, old.last_heartbeat_at""")) {
            bindHolder(ps, 1, wanted);
            bindSlot(ps, 5, wanted);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(route(rs)) : Optional.empty();
            }
        }
    }

    /** The slot's key: uid, device type, session key, from parameter {@code at} on. */
    private static void bindSlot(PreparedStatement ps, int at, DeviceRoute r) throws SQLException {
        ps.setLong(at, r.uid());
        ps.setString(at + 1, r.deviceType());
        ps.setString(at + 2, r.sessionKey());
    }

    /** Who holds the slot: node, connection, device, epoch, from parameter {@code at} on. */
    private static void bindHolder(PreparedStatement ps, int at, DeviceRoute r) throws SQLException {
        ps.setInt(at, r.nodeId());
        ps.setString(at + 1, r.connectionId());
        ps.setString(at + 2, r.deviceId());
        ps.setLong(at + 3, r.epoch());
    }

    /** Removes the route only if this connection still holds it (a displaced connection removes nothing). */
    @TransactionAttribute(TransactionAttributeType.REQUIRED)
    public Optional<DeviceRoute> release(String connectionId) {
        return routes("DELETE FROM presence_device_route WHERE connection_id = ? RETURNING " + COLUMNS, connectionId)
                .stream().findFirst();
    }

    /**
     * Under each user's presence row lock: the device types online now against the last announced
     * set. Returns, per user whose set changed, the new version and the routes it describes (the
     * caller announces it). The first statement takes the locks, in uid order (creating the row for a
     * user's first session); the routes are read after it, so they include every route change
     * committed before the locks were granted — a concurrent login of another device type either
     * committed before (and is counted here) or recounts under the lock after this commit.
     *
     * <p>Three plain statements, each an index lookup per uid, and the comparison in Java: the one
     * statement that did it all (the device types recounted in a subquery, the update, and a join
     * back to the routes) read 135–415 buffers per user in a 19,000-login burst against 11 for
     * these (pg_stat_statements); its plan, made against a route table that grew by thousands of
     * rows between two analyzes, read far more of that table than the batch's rows.
     */
    @TransactionAttribute(TransactionAttributeType.MANDATORY)
    public Map<Long, PresenceVersion> bumpPresenceVersions(Collection<Long> uids) {
        Long[] sorted = uids.stream().distinct().sorted().toArray(Long[]::new);
        Map<Long, PresenceVersion> changed = new LinkedHashMap<>();
        if (sorted.length == 0) {
            return changed;
        }
        try (Connection c = dataSource.getConnection()) {
            Map<Long, String> announced = new HashMap<>();
            try (PreparedStatement ps = CustomPlans.prepare(c, """
                    INSERT INTO presence_user AS p (uid) SELECT u FROM unnest(?::int8[]) u ORDER BY u
                    ON CONFLICT (uid) DO UPDATE SET uid = p.uid RETURNING p.uid, p.device_types""")) {
                SqlArrays.bind(c, ps, (Object) sorted);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        announced.put(rs.getLong(1), rs.getString(2));
                    }
                }
            }
            Map<Long, List<DeviceRoute>> live = new LinkedHashMap<>();
            for (Long uid : sorted) {
                live.put(uid, new ArrayList<>());
            }
            for (DeviceRoute r : routesOf(Arrays.asList(sorted))) {
                live.get(r.uid()).add(r);
            }
            List<Long> bumped = new ArrayList<>();
            List<String> types = new ArrayList<>();
            live.forEach((uid, routes) -> {
                String now = routes.stream().map(DeviceRoute::deviceType).distinct().sorted().collect(Collectors.joining(","));
                if (!now.equals(announced.get(uid))) {
                    bumped.add(uid);
                    types.add(now);
                }
            });
            if (bumped.isEmpty()) {
                return changed;
            }
            try (PreparedStatement ps = CustomPlans.prepare(c, """
                    UPDATE presence_user p SET version = p.version + 1, device_types = t.types, changed_at = now()
                    FROM unnest(?::int8[], ?::varchar[]) t(uid, types) WHERE p.uid = t.uid
                    RETURNING p.uid, p.version""")) {
                SqlArrays.bind(c, ps, bumped.toArray(Long[]::new), types.toArray(String[]::new));
                Map<Long, Long> versions = new HashMap<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        versions.put(rs.getLong(1), rs.getLong(2));
                    }
                }
                for (Long uid : bumped) {
                    changed.put(uid, new PresenceVersion(versions.get(uid), live.get(uid)));
                }
                return changed;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("presence version failed: " + e.getMessage(), e);
        }
    }

    /** Removes a user's routes of one device type (an operator kicks that device). */
    @TransactionAttribute(TransactionAttributeType.REQUIRED)
    public List<DeviceRoute> release(long uid, String deviceType) {
        return routes("DELETE FROM presence_device_route WHERE uid = ? AND device_type = ? RETURNING " + COLUMNS, uid, deviceType);
    }

    /** Online users per device type, and online users in all (a user on two types counts once there). */
    public java.util.Map<String, Long> onlineByDeviceType() {
        java.util.Map<String, Long> counts = new java.util.TreeMap<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = CustomPlans.prepare(c, """
                SELECT coalesce(device_type, '*'), count(DISTINCT uid) FROM presence_device_route
                GROUP BY GROUPING SETS ((device_type), ())""");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                counts.put(rs.getString(1), rs.getLong(2));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("online count failed: " + e.getMessage(), e);
        }
        counts.putIfAbsent("*", 0L);
        return counts;
    }

    /** Removes every route of a user (the account was disabled or unregistered). */
    @TransactionAttribute(TransactionAttributeType.REQUIRED)
    public List<DeviceRoute> releaseAll(long uid) {
        return routes("DELETE FROM presence_device_route WHERE uid = ? RETURNING " + COLUMNS, uid);
    }

    /** One statement for all heartbeats buffered since the last flush. */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int touch(Collection<String> connectionIds) {
        if (connectionIds.isEmpty()) {
            return 0;
        }
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = CustomPlans.prepare(c,
                     "UPDATE presence_device_route SET last_heartbeat_at = now() WHERE connection_id = ANY(?)")) {
            ps.setArray(1, c.createArrayOf("varchar", connectionIds.toArray()));
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("heartbeat flush failed: " + e.getMessage(), e);
        }
    }

    /**
     * What {@link #expire} or {@link #releaseNode} removed: the routes, and when each node they
     * name last heartbeated (null: it never registered); it may name other nodes too.
     */
    public record Expired(List<DeviceRoute> routes, Map<Integer, OffsetDateTime> nodeHeartbeats) {
    }

    /** Deletes routes silent for longer than {@code timeout}, and those of nodes that stopped heartbeating. */
    @TransactionAttribute(TransactionAttributeType.REQUIRED)
    public Expired expire(Duration timeout, Duration nodeTimeout) {
        // the nodes first: a lost node's silent routes go below, and it must still be known as lost for them; a silent
        // route's node may have stopped too, not yet for long enough to count as lost, and its heartbeat says since when
        HeldNodes held = heldNodes(nodeTimeout);
        List<DeviceRoute> all = new ArrayList<>(routes("""
                DELETE FROM presence_device_route WHERE ctid IN (
                    SELECT ctid FROM presence_device_route WHERE last_heartbeat_at < now() - make_interval(secs => ?)
                    LIMIT 10000 FOR UPDATE SKIP LOCKED)
                RETURNING\s""" + COLUMNS, timeout.toMillis() / 1000.0));
        if (!held.lost().isEmpty()) {
            all.addAll(routes("""
                    DELETE FROM presence_device_route WHERE ctid IN (
                        SELECT ctid FROM presence_device_route WHERE node_id = ANY(?) LIMIT 10000 FOR UPDATE SKIP LOCKED)
                    RETURNING\s""" + COLUMNS, (Object) held.lost().toArray(Integer[]::new)));
        }
        return new Expired(all, held.heartbeats());
    }

    /**
     * Deletes up to 10,000 routes that name {@code nodeId}, with that node's last heartbeat (null:
     * it never registered): a starting node's leftovers from its previous run.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRED)
    public Expired releaseNode(int nodeId) {
        List<OffsetDateTime> heartbeat = select("SELECT heartbeat_at FROM presence_node WHERE node_id = ?",
                rs -> rs.getObject(1, OffsetDateTime.class), nodeId);
        List<DeviceRoute> released = routes("""
                DELETE FROM presence_device_route WHERE ctid IN (
                    SELECT ctid FROM presence_device_route WHERE node_id = ? LIMIT 10000 FOR UPDATE SKIP LOCKED)
                RETURNING\s""" + COLUMNS, nodeId);
        Map<Integer, OffsetDateTime> node = new HashMap<>();
        node.put(nodeId, heartbeat.isEmpty() ? null : heartbeat.get(0));
        return new Expired(released, node);
    }

    /** The nodes that hold routes, with their last heartbeat (null: never registered), and which of them are lost. */
    private record HeldNodes(Map<Integer, OffsetDateTime> heartbeats, Set<Integer> lost) {
    }

    /**
     * The nodes that hold routes, and those of them that stopped heartbeating (or never
     * registered). They are found by skipping through the node index, one probe per node, so this
     * runs every few seconds without reading every route (it used to join every route with its
     * node: 28 ms idle at 19,000 routes, 128 ms in a login burst).
     */
    private HeldNodes heldNodes(Duration nodeTimeout) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = CustomPlans.prepare(c, """
                WITH RECURSIVE held(node_id) AS (
                    (SELECT node_id FROM presence_device_route ORDER BY node_id LIMIT 1)
                    UNION ALL
                    SELECT (SELECT r.node_id FROM presence_device_route r WHERE r.node_id > h.node_id ORDER BY r.node_id LIMIT 1)
                    FROM held h WHERE h.node_id IS NOT NULL)
                SELECT h.node_id, n.heartbeat_at, n.node_id IS NULL OR n.heartbeat_at < now() - make_interval(secs => ?)
                FROM held h LEFT JOIN presence_node n ON n.node_id = h.node_id
                WHERE h.node_id IS NOT NULL""")) {
            ps.setDouble(1, nodeTimeout.toMillis() / 1000.0);
            Map<Integer, OffsetDateTime> heartbeats = new HashMap<>();
            Set<Integer> lost = new HashSet<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    heartbeats.put(rs.getInt(1), rs.getObject(2, OffsetDateTime.class));
                    if (rs.getBoolean(3)) {
                        lost.add(rs.getInt(1));
                    }
                }
            }
            return new HeldNodes(heartbeats, lost);
        } catch (SQLException e) {
            throw new IllegalStateException("node lookup failed: " + e.getMessage(), e);
        }
    }

    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public List<DeviceRoute> routesOf(long uid) {
        return routesOf(List.of(uid));
    }

    /** A read: it joins the caller's transaction, and outside one (every delivery) begins none. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public List<DeviceRoute> routesOf(Collection<Long> uids) {
        return routes(ofUids(COLUMNS), (Object) uids.toArray(Long[]::new)); // one int8[] parameter
    }

    /**
     * The users' routes (one int8[] parameter), in the order of the primary key's device columns:
     * one primary-key probe per user, whatever the table's size and statistics. With
     * {@code uid = ANY(?)} the plan depended on them: at 11,000 devices and ~85 users a delivery
     * batch, a bitmap scan of the whole batch (0.18–0.41 ms, against 0.15–0.21 ms for the probes,
     * on the live table at 5,000 msg/s), and on freshly analysed statistics a scan of the whole
     * table (0.5–0.6 ms, against 0.15 ms). {@code OFFSET 0} keeps the per-user subquery from being
     * flattened into a join the planner could hash instead.
     */
    private static String ofUids(String columns) {
        return "SELECT " + columns + " FROM (SELECT DISTINCT unnest(?::int8[]) AS wanted) k"
                + " CROSS JOIN LATERAL (SELECT * FROM presence_device_route WHERE uid = k.wanted OFFSET 0) r"
                + " ORDER BY uid, device_type, session_key";
    }

    /**
     * The users' presence versions, the ones their {@code presence} frames carry; a user never seen
     * online has none. A read: read it before the routes, so that routes read after are never older
     * than the version shown with them.
     */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public Map<Long, Long> presenceVersions(Collection<Long> uids) {
        Map<Long, Long> versions = new HashMap<>();
        select("SELECT uid, version FROM presence_user WHERE uid = ANY(?::int8[])",
                rs -> Map.entry(rs.getLong(1), rs.getLong(2)), (Object) uids.toArray(Long[]::new))
                .forEach(e -> versions.put(e.getKey(), e.getValue()));
        return versions;
    }

    /** Where the users' devices are connected, as {@link #routesOf(Collection)} orders them; a read, as it is. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public List<RouteTarget> targetsOf(Collection<Long> uids) {
        return select(ofUids("uid, node_id, connection_id"),
                rs -> new RouteTarget(rs.getLong(1), rs.getInt(2), rs.getString(3)), (Object) uids.toArray(Long[]::new));
    }

    /**
     * Every node in the node table with its routes (one index count each) and whether it
     * heartbeated within {@code nodeTimeout}; by id.
     */
    public List<ClusterNode> nodes(Duration nodeTimeout) {
        return Jdbc.query(dataSource, e -> new IllegalStateException("node list failed: " + e.getMessage(), e), """
                SELECT n.node_id, n.address, n.started_at, n.heartbeat_at,
                       (SELECT count(*) FROM presence_device_route r WHERE r.node_id = n.node_id),
                       n.heartbeat_at >= now() - make_interval(secs => ?)
                FROM presence_node n ORDER BY n.node_id""",
                rs -> new ClusterNode(rs.getInt(1), rs.getString(2), rs.getObject(3, OffsetDateTime.class),
                        rs.getObject(4, OffsetDateTime.class), rs.getLong(5), rs.getBoolean(6)),
                nodeTimeout.toMillis() / 1000.0);
    }

    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public void heartbeatNode(int nodeId, String address, boolean starting) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("""
                     INSERT INTO presence_node AS n (node_id, address, started_at, heartbeat_at) VALUES (?, ?, now(), now())
                     ON CONFLICT (node_id) DO UPDATE SET heartbeat_at = now(), address = EXCLUDED.address,
                         started_at = CASE WHEN ? THEN now() ELSE n.started_at END""")) {
            ps.setInt(1, nodeId);
            ps.setString(2, address);
            ps.setBoolean(3, starting);
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException("node heartbeat failed: " + e.getMessage(), e);
        }
    }

    /** Runs a statement (a uid array parameter becomes int8[], a node array int4[]) and reads the routes it returns. */
    private List<DeviceRoute> routes(String sql, Object... parameters) {
        return select(sql, RouteStore::route, parameters);
    }

    private <T> List<T> select(String sql, Jdbc.Row<T> row, Object... parameters) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = CustomPlans.prepare(c, sql)) {
            for (int i = 0; i < parameters.length; i++) {
                Object p = parameters[i];
                ps.setObject(i + 1, p instanceof Long[] uids ? c.createArrayOf("int8", uids)
                        : p instanceof Integer[] nodes ? c.createArrayOf("int4", nodes) : p);
            }
            List<T> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(row.read(rs));
                }
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException("route statement failed: " + e.getMessage(), e);
        }
    }

    private static final String COLUMNS =
            "uid, device_type, session_key, node_id, connection_id, device_id, epoch, login_at, last_heartbeat_at";
    private static final String SELECT = "SELECT " + COLUMNS + " FROM presence_device_route";

    private static DeviceRoute route(ResultSet rs) throws SQLException {
        return new DeviceRoute(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getInt(4), rs.getString(5), rs.getString(6),
                rs.getLong(7), rs.getObject(8, OffsetDateTime.class), rs.getObject(9, OffsetDateTime.class));
    }
}
