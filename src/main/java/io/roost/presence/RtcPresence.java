package io.roost.presence;

import io.roost.platform.store.SqlTimes;
import io.roost.presence.rtc.RtcRole;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.persistence.Query;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * Who is in which RTC channel: the presence module's read side for channels (the write side is
 * the NCS webhook). Counts come from the trigger-maintained shard rows, never from COUNT(*).
 */
@ApplicationScoped
public class RtcPresence {

    @Schema(name = "ChannelCounts") // in the OpenAPI document: another API type has the same simple name
    public record Counts(long broadcasters, long audience, long communication) {
        public long total() {
            return broadcasters + audience + communication;
        }
    }

    public record Channel(String channelName, Counts online, Long createdTs, Long destroyedTs, boolean alive,
                          OffsetDateTime firstSeenAt) {
    }

    public record Member(String channelName, long uid, String role, boolean online, long clientSeq, int lastEventType,
                         long lastTs, Integer platform, Integer clientType, String account, OffsetDateTime joinedAt,
                         OffsetDateTime leftAt, Integer leaveReason, OffsetDateTime updatedAt) {
    }

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    private static final String CHANNEL_SELECT = """
            SELECT c.channel_name, coalesce(sum(k.broadcasters), 0), coalesce(sum(k.audience), 0),
                   coalesce(sum(k.communication), 0), c.created_ts, c.destroyed_ts, c.first_seen_at
            FROM rtc_channel c LEFT JOIN rtc_channel_count k ON k.channel_name = c.channel_name
            """;

    /** Channels in name order after {@code cursor} (keyset paging). */
    public List<Channel> channels(String cursor, int limit) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery(CHANNEL_SELECT + """
                        WHERE c.channel_name > ?1 GROUP BY c.channel_name ORDER BY c.channel_name LIMIT ?2""")
                .setParameter(1, cursor == null ? "" : cursor)
                .setParameter(2, limit)
                .getResultList();
        return rows.stream().map(RtcPresence::channel).toList();
    }

    @jakarta.inject.Inject
    io.roost.platform.ids.IdGenerator ids;

    /**
     * An operator kicks an online member: a kick row due now, on the same path as a 999 kick (the
     * kicking timer calls Agora's kicking-rule API, retries, publishes the outcome). Keyed by the
     * member's current clientSeq, so asking twice kicks once. False if the member is not online.
     */
    @jakarta.transaction.Transactional
    public boolean kick(String channelName, long uid) {
        return em.createNativeQuery("""
                        INSERT INTO rtc_channel_kick (id, channel_name, uid, client_seq, due_at)
                        SELECT ?1, channel_name, uid, last_client_seq, now() FROM rtc_member
                        WHERE channel_name = ?2 AND uid = ?3 AND online
                        ON CONFLICT (channel_name, uid, client_seq) DO NOTHING""")
                .setParameter(1, ids.nextId()).setParameter(2, channelName).setParameter(3, uid).executeUpdate() == 1;
    }

    /** Channels with someone online, and everyone online by role (the admin overview). */
    public record Summary(long activeChannels, Counts online) {
    }

    public Summary summary() {
        // a channel's shards are never negative, so "some shard above zero" is "someone online"
        Object[] r = (Object[]) em.createNativeQuery("""
                SELECT count(DISTINCT channel_name) FILTER (WHERE broadcasters + audience + communication > 0),
                       coalesce(sum(broadcasters), 0), coalesce(sum(audience), 0), coalesce(sum(communication), 0)
                FROM rtc_channel_count""").getSingleResult();
        return new Summary(((Number) r[0]).longValue(), new Counts(((Number) r[1]).longValue(), ((Number) r[2]).longValue(),
                ((Number) r[3]).longValue()));
    }

    public Optional<Channel> channel(String channelName) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery(CHANNEL_SELECT + " WHERE c.channel_name = ?1 GROUP BY c.channel_name")
                .setParameter(1, channelName)
                .getResultList();
        return rows.stream().findFirst().map(RtcPresence::channel);
    }

    /** Members by uid after {@code afterUid}; {@code online}/{@code role} filter when not null. */
    public List<Member> members(String channelName, Boolean online, RtcRole role, long afterUid, int limit) {
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
        return rows.stream().map(RtcPresence::member).toList();
    }

    /** The channels a uid is online in now. */
    public List<Member> channelsOf(long uid) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery(MEMBER_SELECT + " WHERE uid = ?1 AND online ORDER BY channel_name LIMIT 1000")
                .setParameter(1, uid)
                .getResultList();
        return rows.stream().map(RtcPresence::member).toList();
    }

    private static final String MEMBER_SELECT = """
            SELECT channel_name, uid, role, online, last_client_seq, last_event_type, last_ts, platform, client_type,
                   account, joined_at, left_at, leave_reason, updated_at FROM rtc_member""";

    private static Channel channel(Object[] r) {
        Long created = r[4] == null ? null : ((Number) r[4]).longValue();
        Long destroyed = r[5] == null ? null : ((Number) r[5]).longValue();
        boolean alive = destroyed == null || (created != null && created > destroyed);
        return new Channel((String) r[0], new Counts(((Number) r[1]).longValue(), ((Number) r[2]).longValue(),
                ((Number) r[3]).longValue()), created, destroyed, alive, SqlTimes.of(r[6]));
    }

    private static Member member(Object[] r) {
        return new Member((String) r[0], ((Number) r[1]).longValue(), RtcRole.of(((Number) r[2]).intValue()).name(),
                (Boolean) r[3], ((Number) r[4]).longValue(), ((Number) r[5]).intValue(), ((Number) r[6]).longValue(),
                r[7] == null ? null : ((Number) r[7]).intValue(), r[8] == null ? null : ((Number) r[8]).intValue(),
                (String) r[9], SqlTimes.of(r[10]), SqlTimes.of(r[11]), r[12] == null ? null : ((Number) r[12]).intValue(), SqlTimes.of(r[13]));
    }
}
