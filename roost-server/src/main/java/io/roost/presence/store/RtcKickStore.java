package io.roost.presence.store;

import io.roost.platform.metrics.StoreTimed;
import io.roost.platform.ids.IdGenerator;
import io.roost.platform.json.Jsonp;
import io.roost.platform.outbox.OutboxPublisher;
import io.roost.platform.store.SqlTimes;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * The rtc_channel_kick rows: an operator's kick, leases for the kicker, outcomes, and the list an
 * operator reads.
 */
@StoreTimed
@Stateless
public class RtcKickStore {

    public static final String TOPIC = "roost-rtc-events";
    static final int LEASE_SECONDS = 30;

    public record Kick(long id, String channelName, long uid, long clientSeq, String status, int attempts,
                       Long ruleId, String lastError, OffsetDateTime dueAt, OffsetDateTime createdAt,
                       OffsetDateTime doneAt) {
    }

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    @Inject
    OutboxPublisher outbox;

    @Inject
    IdGenerator ids;

    /**
     * A kick row due now for a member online in the channel, keyed by the member's current
     * clientSeq (so asking twice kicks once); false if the member is not online.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRED)
    public boolean scheduleNow(String channelName, long uid) {
        return em.createNativeQuery("""
                        INSERT INTO rtc_channel_kick (id, channel_name, uid, client_seq, due_at)
                        SELECT ?1, channel_name, uid, last_client_seq, now() FROM rtc_member
                        WHERE channel_name = ?2 AND uid = ?3 AND online
                        ON CONFLICT (channel_name, uid, client_seq) DO NOTHING""")
                .setParameter(1, ids.nextId()).setParameter(2, channelName).setParameter(3, uid).executeUpdate() == 1;
    }

    /**
     * Takes up to {@code limit} due kicks and leases them for 30 s (due_at moves on), so another
     * node or tick does not run them meanwhile; a node that dies mid-call leaves the lease to expire.
     */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public List<Kick> leaseDue(int limit) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("""
                        UPDATE rtc_channel_kick SET due_at = now() + make_interval(secs => ?2), attempts = attempts + 1
                        WHERE id IN (SELECT id FROM rtc_channel_kick WHERE status = 'PENDING' AND due_at <= now()
                                     ORDER BY due_at LIMIT ?1 FOR UPDATE SKIP LOCKED)
                        RETURNING id, channel_name, uid, client_seq, status, attempts, rule_id, last_error,
                                  due_at, created_at, done_at""")
                .setParameter(1, limit)
                .setParameter(2, LEASE_SECONDS)
                .getResultList();
        return rows.stream().map(RtcKickStore::kick).toList();
    }

    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public void succeeded(Kick kick, long ruleId) {
        em.createNativeQuery("""
                        UPDATE rtc_channel_kick SET status = 'DONE', rule_id = ?2, done_at = now(), last_error = NULL
                        WHERE id = ?1""")
                .setParameter(1, kick.id())
                .setParameter(2, ruleId)
                .executeUpdate();
        publish(kick, "DONE", ruleId, null);
    }

    /** Retries later with backoff, or gives up after {@code maxAttempts}. */
    @TransactionAttribute(TransactionAttributeType.REQUIRES_NEW)
    public void failed(Kick kick, String error, long retryInSeconds, int maxAttempts) {
        boolean giveUp = kick.attempts() >= maxAttempts;
        String message = error.length() > 1000 ? error.substring(0, 1000) : error;
        em.createNativeQuery("""
                        UPDATE rtc_channel_kick SET status = ?2, last_error = ?3,
                            due_at = now() + make_interval(secs => ?4),
                            done_at = CASE WHEN ?2 = 'FAILED' THEN now() END
                        WHERE id = ?1""")
                .setParameter(1, kick.id())
                .setParameter(2, giveUp ? "FAILED" : "PENDING")
                .setParameter(3, message)
                .setParameter(4, retryInSeconds)
                .executeUpdate();
        if (giveUp) {
            publish(kick, "FAILED", null, message);
        }
    }

    public List<Kick> forChannel(String channelName, int limit) {
        @SuppressWarnings("unchecked")
        List<Object[]> rows = em.createNativeQuery("""
                        SELECT id, channel_name, uid, client_seq, status, attempts, rule_id, last_error,
                               due_at, created_at, done_at
                        FROM rtc_channel_kick WHERE channel_name = ?1 ORDER BY id DESC LIMIT ?2""")
                .setParameter(1, channelName)
                .setParameter(2, limit)
                .getResultList();
        return rows.stream().map(RtcKickStore::kick).toList();
    }

    private void publish(Kick kick, String status, Long ruleId, String error) {
        var body = Jsonp.PROVIDER.createObjectBuilder()
                .add("type", "rtc.kick")
                .add("channelName", kick.channelName())
                .add("uid", kick.uid())
                .add("clientSeq", kick.clientSeq())
                .add("status", status)
                .add("attempts", kick.attempts());
        if (ruleId != null) {
            body.add("ruleId", ruleId);
        }
        if (error != null) {
            body.add("error", error);
        }
        outbox.publish(TOPIC, "kick", kick.channelName(), body.build().toString());
    }

    private static Kick kick(Object[] r) {
        return new Kick(((Number) r[0]).longValue(), (String) r[1], ((Number) r[2]).longValue(),
                ((Number) r[3]).longValue(), (String) r[4], ((Number) r[5]).intValue(),
                r[6] == null ? null : ((Number) r[6]).longValue(), (String) r[7], SqlTimes.of(r[8]), SqlTimes.of(r[9]),
                SqlTimes.of(r[10]));
    }
}
