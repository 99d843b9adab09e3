package io.roost.social.store;

import io.roost.platform.metrics.StoreTimed;
import io.roost.platform.store.SqlTimes;
import io.roost.social.SocialGraph.FriendRequest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;

/**
 * The social_friend_request rows. A request's status moves only by conditional updates
 * ({@code WHERE status = 'PENDING'}), so of two concurrent answers exactly one applies. No
 * transaction of its own: every statement runs in its caller's.
 */
@StoreTimed
@ApplicationScoped
public class FriendRequestStore {

    private static final String COLUMNS = "id, from_id, to_id, message, status, created_at, expires_at, answered_at, note";

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    /** A pending request, unless {@code from} has one pending to {@code to} already (then false, nothing written). */
    public boolean insert(long id, long from, long to, String message, OffsetDateTime expiresAt) {
        return em.createNativeQuery("""
                        INSERT INTO social_friend_request (id, from_id, to_id, message, expires_at)
                        VALUES (:id, :f, :t, :m, :e) ON CONFLICT DO NOTHING""")
                .setParameter("id", id).setParameter("f", from).setParameter("t", to).setParameter("m", message)
                .setParameter("e", expiresAt)
                .executeUpdate() == 1;
    }

    /**
     * Answers a pending, unexpired request addressed to {@code answerer}: the requester's id, or
     * empty if there was no such request to answer.
     */
    public Optional<Long> answer(long requestId, long answerer, String status, String note) {
        List<?> from = em.createNativeQuery("""
                        UPDATE social_friend_request SET status = :s, answered_at = now(), note = :n
                        WHERE id = :id AND to_id = :me AND status = 'PENDING' AND expires_at > now() RETURNING from_id""")
                .setParameter("s", status).setParameter("n", note).setParameter("id", requestId).setParameter("me", answerer)
                .getResultList();
        return from.stream().map(o -> ((Number) o).longValue()).findFirst();
    }

    /** Withdraws a pending request {@code from} sent; false if there was none. */
    public boolean cancel(long requestId, long from) {
        return em.createNativeQuery("""
                        UPDATE social_friend_request SET status = 'CANCELLED', answered_at = now()
                        WHERE id = :id AND from_id = :me AND status = 'PENDING'""")
                .setParameter("id", requestId).setParameter("me", from).executeUpdate() == 1;
    }

    /**
     * Requests to (incoming) or from (outgoing) uid, newest first, keyset-paged by id; a status of
     * PENDING leaves out the expired ones, null means any status.
     */
    public List<FriendRequest> list(long uid, boolean incoming, String status, Long before, int limit) {
        String side = incoming ? "to_id" : "from_id";
        String statusFilter = status == null ? "" : status.equals("PENDING")
                ? " AND status = 'PENDING' AND expires_at > now()" : " AND status = :st";
        var q = em.createNativeQuery("SELECT " + COLUMNS + " FROM social_friend_request WHERE " + side + " = :u"
                        + statusFilter + " AND id < :before ORDER BY id DESC LIMIT :n")
                .setParameter("u", uid).setParameter("before", before == null ? Long.MAX_VALUE : before)
                .setParameter("n", limit);
        if (status != null && !status.equals("PENDING")) {
            q.setParameter("st", status);
        }
        return requests(q.getResultList());
    }

    public Optional<FriendRequest> find(long id) {
        return requests(em.createNativeQuery("SELECT " + COLUMNS + " FROM social_friend_request WHERE id = :id")
                .setParameter("id", id).getResultList()).stream().findFirst();
    }

    /** The request {@code from} has pending to {@code to}, expired or not. */
    public Optional<FriendRequest> pending(long from, long to) {
        return requests(em.createNativeQuery("SELECT " + COLUMNS
                        + " FROM social_friend_request WHERE from_id = :f AND to_id = :t AND status = 'PENDING'")
                .setParameter("f", from).setParameter("t", to).getResultList()).stream().findFirst();
    }

    /** Marks {@code from}'s pending request to {@code to} EXPIRED if it is past its expiry. */
    public void expireStale(long from, long to) {
        em.createNativeQuery("""
                        UPDATE social_friend_request SET status = 'EXPIRED'
                        WHERE from_id = :f AND to_id = :t AND status = 'PENDING' AND expires_at <= now()""")
                .setParameter("f", from).setParameter("t", to).executeUpdate();
    }

    /** Marks every pending request past its expiry EXPIRED. */
    public int expireAll() {
        return em.createNativeQuery(
                "UPDATE social_friend_request SET status = 'EXPIRED' WHERE status = 'PENDING' AND expires_at <= now()")
                .executeUpdate();
    }

    private static List<FriendRequest> requests(List<?> rows) {
        return rows.stream().map(o -> {
            Object[] r = (Object[]) o;
            return new FriendRequest(((Number) r[0]).longValue(), ((Number) r[1]).longValue(), ((Number) r[2]).longValue(),
                    (String) r[3], (String) r[4], SqlTimes.of(r[5]), SqlTimes.of(r[6]), SqlTimes.of(r[7]), (String) r[8]);
        }).toList();
    }
}
