package io.roost.presence.rtc;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The rules for one (channel, uid), stated in plain Java. The database applies the same rules in
 * one conditional upsert per row (RtcStore); this class is their specification, the oracle of the
 * tests, and the batch reducer.
 *
 * <ul>
 *   <li>The first event seen for a pair creates its state, whatever the event (a leave creates an
 *       offline tombstone, which then rejects the older join arriving late).</li>
 *   <li>Afterwards an event applies only if its clientSeq is greater than the stored one; equal or
 *       smaller is a duplicate or stale and changes nothing.</li>
 *   <li>A member event older (by {@code ts}) than the channel's last destroy applies offline with
 *       reason channel-destroyed: it happened in a channel that is gone.</li>
 * </ul>
 */
public final class MemberTransitions {

    /** The state kept per (channel, uid). */
    public record State(RtcRole role, boolean online, long clientSeq, long ts, int eventType, Integer reason) {
    }

    private MemberTransitions() {
    }

    public static State apply(State current, NcsNotice n, Long channelDestroyedTs) {
        if (current != null && n.clientSeq() <= current.clientSeq()) {
            return current;
        }
        boolean online = NcsEventType.online(n.eventType());
        if (online && channelDestroyedTs != null && n.ts() < channelDestroyedTs) {
            return new State(NcsEventType.role(n.eventType()), false, n.clientSeq(), n.ts(),
                    NcsEventType.CHANNEL_DESTROY, null);
        }
        return new State(NcsEventType.role(n.eventType()), online, n.clientSeq(), n.ts(), n.eventType(),
                online ? null : n.reason());
    }

    /**
     * Of several notices for the same (channel, uid) in one batch only the highest clientSeq can
     * matter, and one multi-row upsert may touch a row only once: keep that one. The result is
     * sorted by (channel, uid); concurrent batches do not deadlock on member rows because they take
     * the rows' count shards first, in order (RtcStore.applyBatch).
     */
    public static List<NcsNotice> latestPerMember(List<NcsNotice> notices) {
        Map<String, NcsNotice> latest = new LinkedHashMap<>();
        for (NcsNotice n : notices) {
            latest.merge(n.channelName() + '\u0000' + n.uid(), n,
                    (a, b) -> b.clientSeq() > a.clientSeq() ? b : a);
        }
        List<NcsNotice> result = new ArrayList<>(latest.values());
        result.sort(Comparator.comparing(NcsNotice::channelName).thenComparingLong(NcsNotice::uid));
        return result;
    }
}
