package io.roost.presence.store;

import io.roost.platform.metrics.StoreTimed;
import io.roost.platform.ids.IdGenerator;
import io.roost.platform.store.SqlArrays;
import io.roost.platform.store.SqlTimes;
import io.roost.presence.RtcPresence;
import io.roost.presence.rtc.NcsEventType;
import io.roost.presence.rtc.NcsNotice;
import io.roost.presence.rtc.RtcRole;
import jakarta.annotation.Resource;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.Query;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import javax.sql.DataSource;

/**
 * RTC presence rows. The write path is plain JDBC on purpose: one multi-row conditional upsert
 * per batch, with arrays, is what makes durable ingestion fast. The read side (channels, members,
 * the overview's summary) is what {@link RtcPresence} offers.
 */
@StoreTimed
@Stateless
public class RtcStore {

    /** What one batch did: how many member rows changed, and the 999 kicks it scheduled. */
    public record BatchOutcome(int membersChanged, int kicksScheduled) {
    }

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    @Inject
    IdGenerator ids;

    /** Count shards per channel: the trigger rtc_member_count() puts a member in shard uid &amp; 7. */
    static final int COUNT_SHARDS = 8;

    /**
     * Applies channel events, then member events (already reduced to one per member), in one
     * transaction. Every member row is changed by one conditional statement, so any number of
     * concurrent batches on any nodes converge to the state of the highest clientSeq.
     *
     * <p>Lock order, the same in every batch so that concurrent batches wait for each other instead
     * of deadlocking: channel rows, then count shards, then member rows, each set in the database's
     * sort order. Member rows need no order of their own: a batch changes a member only while it
     * holds the member's count shard, so two batches meet at the shard first. A channel destroy may
     * take anyone in its channel offline, so it holds all of the channel's shards; that also makes
     * it wait for a batch in flight on the channel (or that batch for it), so a join older than the
     * destroy cannot stay online by having read the channel before the destroy committed.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public BatchOutcome applyBatch(List<NcsNotice> channelEvents, List<NcsNotice> memberEvents, Duration kickDelay) {
        List<NcsNotice> destroys = channelEvents.stream()
                .filter(e -> e.eventType() == NcsEventType.CHANNEL_DESTROY).toList();
        try (Connection c = dataSource.getConnection()) {
            ensureChannels(c, channelEvents, memberEvents);
            applyChannelEvents(c, channelEvents);
            lockCountShards(c, memberEvents, destroys);
            takeOfflineBeforeDestroys(c, destroys);
            if (memberEvents.isEmpty()) {
                return new BatchOutcome(0, 0);
            }
            List<long[]> kicks = new ArrayList<>();
            List<String> kickChannels = new ArrayList<>();
            int changed = 0;
            try (PreparedStatement ps = c.prepareStatement(UPSERT_MEMBERS)) {
                int n = memberEvents.size();
                String[] channel = new String[n];
                Long[] uid = new Long[n];
                Short[] role = new Short[n];
                Boolean[] online = new Boolean[n];
                Long[] seq = new Long[n];
                Short[] type = new Short[n];
                Long[] ts = new Long[n];
                Integer[] platform = new Integer[n];
                Integer[] clientType = new Integer[n];
                String[] account = new String[n];
                Integer[] reason = new Integer[n];
                for (int i = 0; i < n; i++) {
                    NcsNotice e = memberEvents.get(i);
                    channel[i] = e.channelName();
                    uid[i] = e.uid();
                    role[i] = NcsEventType.role(e.eventType()).code;
                    online[i] = NcsEventType.online(e.eventType());
                    seq[i] = e.clientSeq();
                    type[i] = (short) e.eventType();
                    ts[i] = e.ts();
                    platform[i] = e.platform();
                    clientType[i] = e.clientType();
                    account[i] = e.account();
                    reason[i] = e.reason();
                }
                SqlArrays.bind(c, ps, channel, uid, role, online, seq, type, ts, platform, clientType, account, reason);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        changed++;
                        int leaveReason = rs.getInt(5);
                        if (!rs.wasNull() && leaveReason == NcsEventType.REASON_ABNORMAL && !rs.getBoolean(4)) {
                            kickChannels.add(rs.getString(1));
                            kicks.add(new long[] {rs.getLong(2), rs.getLong(3)});
                        }
                    }
                }
            }
            if (!kicks.isEmpty()) {
                try (PreparedStatement ps = c.prepareStatement("""
                        INSERT INTO rtc_channel_kick (id, channel_name, uid, client_seq, due_at)
                        VALUES (?, ?, ?, ?, now() + make_interval(secs => ?))
                        ON CONFLICT (channel_name, uid, client_seq) DO NOTHING""")) {
                    for (int i = 0; i < kicks.size(); i++) {
                        ps.setLong(1, ids.nextId());
                        ps.setString(2, kickChannels.get(i));
                        ps.setLong(3, kicks.get(i)[0]);
                        ps.setLong(4, kicks.get(i)[1]);
                        ps.setDouble(5, kickDelay.toMillis() / 1000.0);
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
            }
            return new BatchOutcome(changed, kicks.size());
        } catch (SQLException e) {
            throw new IllegalStateException("RTC batch failed: " + e.getMessage(), e);
        }
    }

    // The CASE on c.destroyed_ts: a join older than the channel's last destroy happened in a
    // channel that is gone, so it lands offline (type 102 = channel destroyed).
    private static final String UPSERT_MEMBERS = """
            INSERT INTO rtc_member AS m (channel_name, uid, role, online, last_client_seq, last_event_type, last_ts,
                                         platform, client_type, account, joined_at, left_at, leave_reason, updated_at)
            SELECT e.channel_name, e.uid, e.role, x.online, e.client_seq,
                   CASE WHEN e.online AND NOT x.online THEN 102 ELSE e.event_type END,
                   e.ts, e.platform, e.client_type, e.account,
                   CASE WHEN x.online THEN now() END,
                   CASE WHEN x.online THEN NULL ELSE now() END,
                   CASE WHEN e.online THEN NULL ELSE e.reason END,
                   now()
            FROM unnest(?::varchar[], ?::int8[], ?::int2[], ?::bool[], ?::int8[], ?::int2[], ?::int8[],
                        ?::int4[], ?::int4[], ?::varchar[], ?::int4[])
                 AS e(channel_name, uid, role, online, client_seq, event_type, ts, platform, client_type, account, reason)
            LEFT JOIN rtc_channel c ON c.channel_name = e.channel_name
            CROSS JOIN LATERAL (SELECT e.online AND NOT coalesce(e.ts < c.destroyed_ts, false) AS online) x
            ON CONFLICT (channel_name, uid) DO UPDATE SET
                role = EXCLUDED.role,
                online = EXCLUDED.online,
                last_client_seq = EXCLUDED.last_client_seq,
                last_event_type = EXCLUDED.last_event_type,
                last_ts = EXCLUDED.last_ts,
                platform = coalesce(EXCLUDED.platform, m.platform),
                client_type = coalesce(EXCLUDED.client_type, m.client_type),
                account = coalesce(EXCLUDED.account, m.account),
                joined_at = CASE WHEN NOT EXCLUDED.online THEN m.joined_at
                                 WHEN m.online THEN m.joined_at ELSE now() END,
                left_at = CASE WHEN EXCLUDED.online THEN NULL
                               WHEN m.online THEN now() ELSE m.left_at END,
                leave_reason = EXCLUDED.leave_reason,
                updated_at = now()
            WHERE m.last_client_seq < EXCLUDED.last_client_seq
            RETURNING m.channel_name, m.uid, m.last_client_seq, m.online, m.leave_reason""";

    /**
     * Takes the count shard rows the batch's members map to, and every shard of a destroyed channel
     * (creating missing ones), before any member row: the count trigger then only updates rows this
     * transaction holds already.
     */
    private static void lockCountShards(Connection c, List<NcsNotice> memberEvents, List<NcsNotice> destroys)
            throws SQLException {
        List<String> channels = new ArrayList<>();
        List<Short> shards = new ArrayList<>();
        for (NcsNotice e : memberEvents) {
            channels.add(e.channelName());
            shards.add((short) (e.uid() & (COUNT_SHARDS - 1)));
        }
        for (NcsNotice d : destroys) {
            for (short shard = 0; shard < COUNT_SHARDS; shard++) {
                channels.add(d.channelName());
                shards.add(shard);
            }
        }
        if (channels.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement("""
                INSERT INTO rtc_channel_count AS k (channel_name, shard)
                SELECT DISTINCT * FROM unnest(?::varchar[], ?::int2[]) ORDER BY 1, 2
                ON CONFLICT (channel_name, shard) DO UPDATE SET broadcasters = k.broadcasters""")) {
            SqlArrays.bind(c, ps, channels.toArray(String[]::new), shards.toArray(Short[]::new));
            ps.executeUpdate();
        }
    }

    /**
     * Creates the batch's channels that do not exist yet. It waits for a transaction that is
     * creating or changing one of them, so it is the channel-row step of the lock order: every
     * channel of the batch, its channel events' too, in one sorted statement, before anything else.
     * An existing channel is not locked: member batches on one channel do not wait for each other.
     */
    private static void ensureChannels(Connection c, List<NcsNotice> channelEvents, List<NcsNotice> memberEvents)
            throws SQLException {
        TreeSet<String> names = new TreeSet<>();
        channelEvents.forEach(e -> names.add(e.channelName()));
        memberEvents.forEach(e -> names.add(e.channelName()));
        if (names.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement("""
                INSERT INTO rtc_channel (channel_name) SELECT unnest(?::varchar[]) ORDER BY 1
                ON CONFLICT (channel_name) DO NOTHING""")) {
            ps.setArray(1, c.createArrayOf("varchar", names.toArray(String[]::new)));
            ps.executeUpdate();
        }
    }

    /**
     * The latest create and destroy ts of each channel, in one sorted statement. ensureChannels has
     * created these rows or waited for whoever was creating them, so this only waits for another
     * batch changing them, in the same order.
     */
    private static void applyChannelEvents(Connection c, List<NcsNotice> channelEvents) throws SQLException {
        if (channelEvents.isEmpty()) {
            return;
        }
        int n = channelEvents.size();
        String[] channel = new String[n];
        Long[] created = new Long[n];
        Long[] destroyed = new Long[n];
        for (int i = 0; i < n; i++) {
            NcsNotice e = channelEvents.get(i);
            channel[i] = e.channelName();
            if (e.eventType() == NcsEventType.CHANNEL_CREATE) {
                created[i] = e.ts();
            } else {
                destroyed[i] = e.ts();
            }
        }
        try (PreparedStatement ps = c.prepareStatement("""
                INSERT INTO rtc_channel AS ch (channel_name, created_ts, destroyed_ts)
                SELECT channel_name, max(created_ts), max(destroyed_ts)
                FROM unnest(?::varchar[], ?::int8[], ?::int8[]) AS e(channel_name, created_ts, destroyed_ts)
                GROUP BY 1 ORDER BY 1
                ON CONFLICT (channel_name) DO UPDATE SET created_ts = greatest(ch.created_ts, EXCLUDED.created_ts),
                    destroyed_ts = greatest(ch.destroyed_ts, EXCLUDED.destroyed_ts), updated_at = now()""")) {
            SqlArrays.bind(c, ps, channel, created, destroyed);
            ps.executeUpdate();
        }
    }

    /** Whoever is still online by an event older than a destroy was in the old channel. */
    private static void takeOfflineBeforeDestroys(Connection c, List<NcsNotice> destroys) throws SQLException {
        if (destroys.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement("""
                UPDATE rtc_member m SET online = false, last_event_type = 102, leave_reason = NULL,
                    left_at = now(), updated_at = now()
                FROM (SELECT channel_name, max(ts) AS ts FROM unnest(?::varchar[], ?::int8[]) AS e(channel_name, ts)
                      GROUP BY 1) d
                WHERE m.channel_name = d.channel_name AND m.online AND m.last_ts < d.ts""")) {
            SqlArrays.bind(c, ps, destroys.stream().map(NcsNotice::channelName).toArray(String[]::new),
                    destroys.stream().map(NcsNotice::ts).toArray(Long[]::new));
            ps.executeUpdate();
        }
    }

    /**
     * Deletes offline tombstones whose last change is older than the retention, at most
     * {@code limit}; the condition is re-checked under the row lock, so a re-join that raced the
     * sweep keeps its row. Also forgets destroyed channels that have no member rows left.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public int sweepTombstones(Duration retention, int limit) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("""
                     DELETE FROM rtc_member WHERE (channel_name, uid) IN (
                         SELECT channel_name, uid FROM rtc_member
                         WHERE NOT online AND updated_at < now() - make_interval(secs => ?)
                         LIMIT ? FOR UPDATE SKIP LOCKED)
                     AND NOT online AND updated_at < now() - make_interval(secs => ?)""");
             PreparedStatement channels = c.prepareStatement("""
                     WITH gone AS (
                         DELETE FROM rtc_channel ch
                         WHERE updated_at < now() - make_interval(secs => ?)
                           AND NOT EXISTS (SELECT 1 FROM rtc_member m WHERE m.channel_name = ch.channel_name)
                           AND ch.channel_name IN (SELECT channel_name FROM rtc_channel
                                                   WHERE updated_at < now() - make_interval(secs => ?) LIMIT 1000)
                         RETURNING channel_name)
                     DELETE FROM rtc_channel_count WHERE channel_name IN (SELECT channel_name FROM gone)""")) {
            double seconds = retention.toMillis() / 1000.0;
            ps.setDouble(1, seconds);
            ps.setInt(2, limit);
            ps.setDouble(3, seconds);
            int deleted = ps.executeUpdate();
            channels.setDouble(1, seconds);
            channels.setDouble(2, seconds);
            channels.executeUpdate();
            return deleted;
        } catch (SQLException e) {
            throw new IllegalStateException("RTC tombstone sweep failed: " + e.getMessage(), e);
        }
    }


    // ---- read side: channels and members, for RtcPresence ----
    // Through the persistence context, in the caller's transaction if there is one; a read never
    // begins one (SUPPORTS). Counts come from the trigger-maintained shard rows, never COUNT(*).

    private static final String CHANNEL_SELECT = """
            SELECT c.channel_name, coalesce(sum(k.broadcasters), 0), coalesce(sum(k.audience), 0),
                   coalesce(sum(k.communication), 0), c.created_ts, c.destroyed_ts, c.first_seen_at
            FROM rtc_channel c LEFT JOIN rtc_channel_count k ON k.channel_name = c.channel_name
            """;

    private static final String MEMBER_SELECT = """
            SELECT channel_name, uid, role, online, last_client_seq, last_event_type, last_ts, platform, client_type,
                   account, joined_at, left_at, leave_reason, updated_at FROM rtc_member""";

    /** Channels in name order after {@code cursor} (keyset paging). */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public List<RtcPresence.Channel> channels(String cursor, int limit) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery(CHANNEL_SELECT + """
                        WHERE c.channel_name > ?1 GROUP BY c.channel_name ORDER BY c.channel_name LIMIT ?2""")
                .setParameter(1, cursor == null ? "" : cursor)
                .setParameter(2, limit)
                .getResultList();
        return rows.stream().map(RtcStore::channel).toList();
    }

    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public Optional<RtcPresence.Channel> channel(String channelName) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery(CHANNEL_SELECT + " WHERE c.channel_name = ?1 GROUP BY c.channel_name")
                .setParameter(1, channelName)
                .getResultList();
        return rows.stream().findFirst().map(RtcStore::channel);
    }

    /** Channels with someone online, and everyone online by role. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public RtcPresence.Summary summary() {
        // a channel's shards are never negative, so "some shard above zero" is "someone online"
        Object[] r = (Object[]) em.createNativeQuery("""
                SELECT count(DISTINCT channel_name) FILTER (WHERE broadcasters + audience + communication > 0),
                       coalesce(sum(broadcasters), 0), coalesce(sum(audience), 0), coalesce(sum(communication), 0)
                FROM rtc_channel_count""").getSingleResult();
        return new RtcPresence.Summary(((Number) r[0]).longValue(), new RtcPresence.Counts(((Number) r[1]).longValue(),
                ((Number) r[2]).longValue(), ((Number) r[3]).longValue()));
    }

    /** Members by uid after {@code afterUid}; {@code online}/{@code role} filter when not null. */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public List<RtcPresence.Member> members(String channelName, Boolean online, RtcRole role, long afterUid, int limit) {
        StringBuilder sql = new StringBuilder(MEMBER_SELECT).append(" WHERE channel_name = :channel AND uid > :after");
        if (online != null) {
            sql.append(" AND online = :online");
        }
        if (role != null) {
            sql.append(" AND role = :role");
        }
        sql.append(" ORDER BY uid LIMIT :limit");
        Query q = em.createNativeQuery(sql.toString())
                .setParameter("channel", channelName)
                .setParameter("after", afterUid)
                .setParameter("limit", limit);
        if (online != null) {
            q.setParameter("online", online);
        }
        if (role != null) {
            q.setParameter("role", role.code);
        }
        @SuppressWarnings("unchecked")
        List<Object[]> rows = q.getResultList();
        return rows.stream().map(RtcStore::member).toList();
    }

    /** The channels a uid is online in now (at most 1,000). */
    @TransactionAttribute(TransactionAttributeType.SUPPORTS)
    public List<RtcPresence.Member> channelsOf(long uid) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery(MEMBER_SELECT + " WHERE uid = ?1 AND online ORDER BY channel_name LIMIT 1000")
                .setParameter(1, uid)
                .getResultList();
        return rows.stream().map(RtcStore::member).toList();
    }

    private static RtcPresence.Channel channel(Object[] r) {
        Long created = r[4] == null ? null : ((Number) r[4]).longValue();
        Long destroyed = r[5] == null ? null : ((Number) r[5]).longValue();
        boolean alive = destroyed == null || (created != null && created > destroyed);
        return new RtcPresence.Channel((String) r[0], new RtcPresence.Counts(((Number) r[1]).longValue(),
                ((Number) r[2]).longValue(), ((Number) r[3]).longValue()), created, destroyed, alive, SqlTimes.of(r[6]));
    }

    private static RtcPresence.Member member(Object[] r) {
        return new RtcPresence.Member((String) r[0], ((Number) r[1]).longValue(), RtcRole.of(((Number) r[2]).intValue()).name(),
                (Boolean) r[3], ((Number) r[4]).longValue(), ((Number) r[5]).intValue(), ((Number) r[6]).longValue(),
                r[7] == null ? null : ((Number) r[7]).intValue(), r[8] == null ? null : ((Number) r[8]).intValue(),
                (String) r[9], SqlTimes.of(r[10]), SqlTimes.of(r[11]), r[12] == null ? null : ((Number) r[12]).intValue(), SqlTimes.of(r[13]));
    }
}
