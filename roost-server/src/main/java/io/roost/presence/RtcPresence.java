package io.roost.presence;

import io.roost.presence.rtc.RtcRole;
import io.roost.presence.store.RtcKickStore;
import io.roost.presence.store.RtcStore;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * Who is in which RTC channel: the presence module's read side for channels (the write side is
 * the NCS webhook), and an operator's kick. Counts come from the trigger-maintained shard rows,
 * never from COUNT(*). The reads run in the caller's transaction if there is one, else in none.
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

    /** Channels with someone online, and everyone online by role (the admin overview). */
    public record Summary(long activeChannels, Counts online) {
    }

    @EJB
    RtcStore store;

    @EJB
    RtcKickStore kicks;

    /** Channels in name order after {@code cursor} (keyset paging). */
    public List<Channel> channels(String cursor, int limit) {
        return store.channels(cursor, limit);
    }

    /**
     * An operator kicks an online member: a kick row due now, on the same path as a 999 kick (the
     * kicking timer calls Agora's kicking-rule API, retries, publishes the outcome). Keyed by the
     * member's current clientSeq, so asking twice kicks once. False if the member is not online.
     */
    @Transactional
    public boolean kick(String channelName, long uid) {
        return kicks.scheduleNow(channelName, uid);
    }

    public Summary summary() {
        return store.summary();
    }

    public Optional<Channel> channel(String channelName) {
        return store.channel(channelName);
    }

    /** Members by uid after {@code afterUid}; {@code online}/{@code role} filter when not null. */
    public List<Member> members(String channelName, Boolean online, RtcRole role, long afterUid, int limit) {
        return store.members(channelName, online, role, afterUid, limit);
    }

    /** The channels a uid is online in now. */
    public List<Member> channelsOf(long uid) {
        return store.channelsOf(uid);
    }
}
