package io.roost.social;

import io.roost.identity.AccountService;
import io.roost.platform.ids.IdGenerator;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.delivery.Notice;
import io.roost.platform.json.Jsonp;
import io.roost.platform.store.SqlArrays;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The social graph: the module's public face. Edges are follows; friends are
 * mutual follows in both modes (approval mode writes both edges when a request is accepted). Every
 * change is one transaction around a conditional statement, and counters move only when a row
 * really changed, so concurrent toggles leave no duplicate edges and counts equal to rows.
 */
@ApplicationScoped
public class SocialGraph {

    /** How {@code a} stands to {@code b}. */
    public record Relation(boolean following, boolean followedBy, boolean friends, boolean blocking, boolean blockedBy) {
    }

    /** Whether {@code from} may message {@code to}: never if blocked; freely if friends; else a stranger. */
    public enum SendDecision { BLOCKED, FRIEND, STRANGER }

    @Schema(name = "FollowCounts") // in the OpenAPI document: another API type has the same simple name
    public record Counts(long followers, long following) {
    }

    public record FriendRequest(long id, long fromId, long toId, String message, String status, OffsetDateTime createdAt,
                                OffsetDateTime expiresAt, OffsetDateTime answeredAt, String note) {
    }

    /** The result of asking for a friendship: a pending request, or friends at once (they had asked too). */
    public record RequestOutcome(FriendRequest request, boolean friends, boolean created) {
    }

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    @Inject
    IdGenerator ids;

    @Inject
    SocialSettings settings;

    @Inject
    AccountService accounts;

    @Inject
    Event<Notice> notices;

    // ---- follow edges ----

    /** true if a new edge was written; false if {@code a} already followed {@code b}. */
    @Transactional
    public boolean follow(long a, long b) {
        checkPeer(a, b);
        if (blocks(b, a)) {
            throw blocked();
        }
        return addEdge(a, b);
    }

    @Transactional
    public boolean unfollow(long a, long b) {
        return removeEdge(a, b);
    }

    /** Removes the friendship both ways, telling nobody. */
    @Transactional
    public boolean removeFriend(long a, long b) {
        boolean one = removeEdge(a, b);
        boolean two = removeEdge(b, a);
        return one || two;
    }

    private boolean addEdge(long a, long b) {
        int n = em.createNativeQuery("INSERT INTO social_follow (follower_id, followee_id) VALUES (:a, :b) ON CONFLICT DO NOTHING")
                .setParameter("a", a).setParameter("b", b).executeUpdate();
        if (n == 1) {
            bumpCounts(a, b, 1);
        }
        return n == 1;
    }

    private boolean removeEdge(long a, long b) {
        int n = em.createNativeQuery("DELETE FROM social_follow WHERE follower_id = :a AND followee_id = :b")
                .setParameter("a", a).setParameter("b", b).executeUpdate();
        if (n == 1) {
            bumpCounts(a, b, -1);
        }
        return n == 1;
    }

    /** a.following and b.followers move by delta, in uid order (two crossing follows cannot deadlock). */
    private void bumpCounts(long follower, long followee, int delta) {
        em.createNativeQuery("""
                        INSERT INTO social_counts AS c (uid, followers, following)
                        SELECT * FROM (VALUES (CAST(:a AS bigint), 0, GREATEST(:d, 0)), (CAST(:b AS bigint), GREATEST(:d, 0), 0)) v
                        ORDER BY 1
                        ON CONFLICT (uid) DO UPDATE SET
                            followers = c.followers + CASE WHEN c.uid = :b THEN :d ELSE 0 END,
                            following = c.following + CASE WHEN c.uid = :a THEN :d ELSE 0 END""")
                .setParameter("a", follower).setParameter("b", followee).setParameter("d", delta)
                .executeUpdate();
    }

    // ---- friend requests (approval mode) ----

    @Transactional
    public RequestOutcome requestFriend(long from, long to, String message) {
        checkPeer(from, to);
        if (blocks(to, from)) {
            throw blocked();
        }
        if (relation(from, to).friends()) {
            throw ProblemException.conflict("already-friends", "You are friends already.");
        }
        expireStale(from, to);
        expireStale(to, from);
        // They asked first: asking back is answering yes.
        Optional<FriendRequest> theirs = pending(to, from);
        if (theirs.isPresent()) {
            return new RequestOutcome(answer(from, theirs.get().id(), "accept", null), true, false);
        }
        long id = ids.nextId();
        int n = em.createNativeQuery("""
                        INSERT INTO social_friend_request (id, from_id, to_id, message, expires_at)
                        VALUES (:id, :f, :t, :m, :e) ON CONFLICT DO NOTHING""")
                .setParameter("id", id).setParameter("f", from).setParameter("t", to).setParameter("m", message)
                .setParameter("e", OffsetDateTime.now(ZoneOffset.UTC).plus(settings.requestTtl()))
                .executeUpdate();
        FriendRequest request = pending(from, to).orElseThrow(() -> new IllegalStateException("pending request vanished"));
        if (n == 1) {
            notify(to, "request", request); // kept in the table for when they are offline
        }
        return new RequestOutcome(request, false, n == 1);
    }

    /**
     * The addressee answers a pending request: accept (both edges written), reject or ignore. One
     * conditional update: of two concurrent answers exactly one applies; the other gets 409.
     */
    @Transactional
    public FriendRequest answer(long answerer, long requestId, String decision, String note) {
        String status = switch (decision) {
            case "accept" -> "ACCEPTED";
            case "reject" -> "REJECTED";
            case "ignore" -> "IGNORED";
            default -> throw ProblemException.badRequest("invalid-decision", "decision is accept, reject or ignore.");
        };
        List<?> from = em.createNativeQuery("""
                        UPDATE social_friend_request SET status = :s, answered_at = now(), note = :n
                        WHERE id = :id AND to_id = :me AND status = 'PENDING' AND expires_at > now() RETURNING from_id""")
                .setParameter("s", status).setParameter("n", note).setParameter("id", requestId).setParameter("me", answerer)
                .getResultList();
        if (from.isEmpty()) {
            FriendRequest r = find(requestId).filter(x -> x.toId() == answerer || x.fromId() == answerer)
                    .orElseThrow(() -> ProblemException.notFound("No friend request " + requestId));
            if (r.toId() != answerer) {
                throw ProblemException.forbidden("Only the addressee answers a friend request.");
            }
            throw ProblemException.conflict("request-not-pending", "The request is " + effectiveStatus(r).toLowerCase() + ".");
        }
        long requester = ((Number) from.get(0)).longValue();
        if (status.equals("ACCEPTED")) {
            addEdge(requester, answerer);
            addEdge(answerer, requester);
        }
        FriendRequest answered = find(requestId).orElseThrow();
        if (!status.equals("IGNORED")) { // ignoring is silent
            notify(requester, "answer", answered);
        }
        return answered;
    }

    @Transactional
    public void cancelRequest(long from, long requestId) {
        int n = em.createNativeQuery("""
                        UPDATE social_friend_request SET status = 'CANCELLED', answered_at = now()
                        WHERE id = :id AND from_id = :me AND status = 'PENDING'""")
                .setParameter("id", requestId).setParameter("me", from).executeUpdate();
        if (n == 0) {
            FriendRequest r = find(requestId).filter(x -> x.fromId() == from)
                    .orElseThrow(() -> ProblemException.notFound("No friend request " + requestId + " of yours"));
            throw ProblemException.conflict("request-not-pending", "The request is " + effectiveStatus(r).toLowerCase() + ".");
        }
    }

    /** Requests to (incoming) or from (outgoing) uid, newest first, keyset-paged by id. */
    public List<FriendRequest> requests(long uid, boolean incoming, String status, Long before, int limit) {
        String side = incoming ? "to_id" : "from_id";
        String statusFilter = status == null ? "" : status.equals("PENDING")
                ? " AND status = 'PENDING' AND expires_at > now()" : " AND status = :st";
        var q = em.createNativeQuery("SELECT " + REQUEST_COLUMNS + " FROM social_friend_request WHERE " + side + " = :u"
                        + statusFilter + " AND id < :before ORDER BY id DESC LIMIT :n")
                .setParameter("u", uid).setParameter("before", before == null ? Long.MAX_VALUE : before)
                .setParameter("n", limit);
        if (status != null && !status.equals("PENDING")) {
            q.setParameter("st", status);
        }
        return q.getResultList().stream().map(r -> request((Object[]) r)).toList();
    }

    public Optional<FriendRequest> find(long id) {
        return em.createNativeQuery("SELECT " + REQUEST_COLUMNS + " FROM social_friend_request WHERE id = :id")
                .setParameter("id", id).getResultList().stream().map(r -> request((Object[]) r)).findFirst();
    }

    private Optional<FriendRequest> pending(long from, long to) {
        return em.createNativeQuery("SELECT " + REQUEST_COLUMNS
                        + " FROM social_friend_request WHERE from_id = :f AND to_id = :t AND status = 'PENDING'")
                .setParameter("f", from).setParameter("t", to).getResultList().stream()
                .map(r -> request((Object[]) r)).findFirst();
    }

    private void expireStale(long from, long to) {
        em.createNativeQuery("""
                        UPDATE social_friend_request SET status = 'EXPIRED'
                        WHERE from_id = :f AND to_id = :t AND status = 'PENDING' AND expires_at <= now()""")
                .setParameter("f", from).setParameter("t", to).executeUpdate();
    }

    @Transactional
    public int expireRequests() {
        return em.createNativeQuery(
                "UPDATE social_friend_request SET status = 'EXPIRED' WHERE status = 'PENDING' AND expires_at <= now()")
                .executeUpdate();
    }

    /** A friendOp frame to the other side's live devices, after commit (the server forwards). */
    private void notify(long uid, String op, FriendRequest r) {
        notices.fire(new Notice(List.of(uid), "friendOp", Jsonp.PROVIDER.createObjectBuilder().add("op", op)
                .add("requestId", Long.toString(r.id())).add("from", Long.toString(r.fromId()))
                .add("to", Long.toString(r.toId())).add("status", r.status())
                .add("message", r.message() == null ? "" : r.message()).add("note", r.note() == null ? "" : r.note())
                .build()));
    }

    static String effectiveStatus(FriendRequest r) {
        return r.status().equals("PENDING") && r.expiresAt().isBefore(OffsetDateTime.now()) ? "EXPIRED" : r.status();
    }

    private static final String REQUEST_COLUMNS = "id, from_id, to_id, message, status, created_at, expires_at, answered_at, note";

    private static FriendRequest request(Object[] r) {
        return new FriendRequest(((Number) r[0]).longValue(), ((Number) r[1]).longValue(), ((Number) r[2]).longValue(),
                (String) r[3], (String) r[4], time(r[5]), time(r[6]), time(r[7]), (String) r[8]);
    }

    private static OffsetDateTime time(Object o) {
        return o == null ? null : io.roost.platform.store.SqlTimes.of(o);
    }

    // ---- blocks and permissions ----

    @Transactional
    public boolean block(long blocker, long blocked) {
        checkPeer(blocker, blocked);
        return em.createNativeQuery("INSERT INTO social_block (blocker_id, blocked_id) VALUES (:a, :b) ON CONFLICT DO NOTHING")
                .setParameter("a", blocker).setParameter("b", blocked).executeUpdate() == 1;
    }

    @Transactional
    public boolean unblock(long blocker, long blocked) {
        return em.createNativeQuery("DELETE FROM social_block WHERE blocker_id = :a AND blocked_id = :b")
                .setParameter("a", blocker).setParameter("b", blocked).executeUpdate() == 1;
    }

    public List<Long> blocked(long blocker, Long after, int limit) {
        return ids(em.createNativeQuery("""
                        SELECT blocked_id FROM social_block WHERE blocker_id = :u AND blocked_id > :after
                        ORDER BY blocked_id LIMIT :n""")
                .setParameter("u", blocker).setParameter("after", after == null ? Long.MIN_VALUE : after)
                .setParameter("n", limit).getResultList());
    }

    /** One primary-key probe: chat calls this on every message. */
    public boolean blocks(long blocker, long blocked) {
        return !em.createNativeQuery("SELECT 1 FROM social_block WHERE blocker_id = :a AND blocked_id = :b")
                .setParameter("a", blocker).setParameter("b", blocked).getResultList().isEmpty();
    }

    public record Permission(boolean hidePresence, boolean muted) {
    }

    @Transactional
    public Permission setPermission(long owner, long peer, Permission p) {
        checkPeer(owner, peer);
        em.createNativeQuery("""
                        INSERT INTO social_permission (owner_id, peer_id, hide_presence, muted) VALUES (:o, :p, :h, :m)
                        ON CONFLICT (owner_id, peer_id) DO UPDATE SET hide_presence = EXCLUDED.hide_presence, muted = EXCLUDED.muted""")
                .setParameter("o", owner).setParameter("p", peer).setParameter("h", p.hidePresence()).setParameter("m", p.muted())
                .executeUpdate();
        return p;
    }

    public Permission permission(long owner, long peer) {
        List<?> rows = em.createNativeQuery("SELECT hide_presence, muted FROM social_permission WHERE owner_id = :o AND peer_id = :p")
                .setParameter("o", owner).setParameter("p", peer).getResultList();
        if (rows.isEmpty()) {
            return new Permission(false, false);
        }
        Object[] r = (Object[]) rows.get(0);
        return new Permission((Boolean) r[0], (Boolean) r[1]);
    }

    /** Those among {@code peers} from whom {@code owner} hides presence (one query per page). */
    public List<Long> hiddenFrom(long owner, List<Long> peers) {
        if (peers.isEmpty()) {
            return List.of();
        }
        return ids(em.createNativeQuery(
                        "SELECT peer_id FROM social_permission WHERE owner_id = :o AND hide_presence AND peer_id = ANY(CAST(:p AS bigint[]))")
                .setParameter("o", owner).setParameter("p", SqlArrays.bigints(peers))
                .getResultList());
    }

    /** Those among {@code candidates} who follow {@code followee}: one index range probe for a whole batch. */
    public Set<Long> followersAmong(long followee, Collection<Long> candidates) {
        if (candidates.isEmpty()) {
            return Set.of();
        }
        return Set.copyOf(ids(em.createNativeQuery(
                        "SELECT follower_id FROM social_follow WHERE followee_id = :f AND follower_id = ANY(CAST(:c AS bigint[]))")
                .setParameter("f", followee).setParameter("c", SqlArrays.bigints(candidates))
                .getResultList()));
    }

    // ---- queries ----

    /** Is {@code a} a follower of {@code b}: one primary-key probe (live rooms count online fans with it). */
    public boolean isFollower(long a, long b) {
        return !em.createNativeQuery("SELECT 1 FROM social_follow WHERE follower_id = :a AND followee_id = :b")
                .setParameter("a", a).setParameter("b", b).getResultList().isEmpty();
    }

    public Relation relation(long a, long b) {
        Object[] r = (Object[]) em.createNativeQuery("""
                        SELECT EXISTS (SELECT 1 FROM social_follow WHERE follower_id = :a AND followee_id = :b),
                               EXISTS (SELECT 1 FROM social_follow WHERE follower_id = :b AND followee_id = :a),
                               EXISTS (SELECT 1 FROM social_block WHERE blocker_id = :a AND blocked_id = :b),
                               EXISTS (SELECT 1 FROM social_block WHERE blocker_id = :b AND blocked_id = :a)""")
                .setParameter("a", a).setParameter("b", b).getSingleResult();
        boolean following = (Boolean) r[0];
        boolean followedBy = (Boolean) r[1];
        return new Relation(following, followedBy, following && followedBy, (Boolean) r[2], (Boolean) r[3]);
    }

    public SendDecision canSend(long from, long to) {
        Relation r = relation(from, to);
        return r.blockedBy() ? SendDecision.BLOCKED : r.friends() ? SendDecision.FRIEND : SendDecision.STRANGER;
    }

    public Counts counts(long uid) {
        List<?> rows = em.createNativeQuery("SELECT followers, following FROM social_counts WHERE uid = :u")
                .setParameter("u", uid).getResultList();
        if (rows.isEmpty()) {
            return new Counts(0, 0);
        }
        Object[] r = (Object[]) rows.get(0);
        return new Counts(((Number) r[0]).longValue(), ((Number) r[1]).longValue());
    }

    /** Those of {@code uids} with at least one follower: the only ones with an audience for their presence (friends follow too). */
    public Set<Long> withFollowers(Collection<Long> uids) {
        return uids.isEmpty() ? Set.of() : new HashSet<>(longs("SELECT uid FROM social_counts WHERE uid = ANY(?) AND followers > 0",
                (Object) uids.toArray(Long[]::new)));
    }

    public List<Long> followers(long uid, Long after, int limit) {
        return longs("""
                SELECT follower_id FROM social_follow WHERE followee_id = ? AND follower_id > ?
                ORDER BY follower_id LIMIT ?""", uid, after == null ? Long.MIN_VALUE : after, limit);
    }

    public List<Long> following(long uid, Long after, int limit) {
        return longs("""
                SELECT followee_id FROM social_follow WHERE follower_id = ? AND followee_id > ?
                ORDER BY followee_id LIMIT ?""", uid, after == null ? Long.MIN_VALUE : after, limit);
    }

    /** Friends (mutual follows) of uid; with {@code with}, only those who are also friends of that user. */
    public List<Long> friends(long uid, Long with, Long after, int limit) {
        String sql = """
                SELECT f.followee_id FROM social_follow f
                JOIN social_follow r ON r.follower_id = f.followee_id AND r.followee_id = f.follower_id
                WHERE f.follower_id = ? AND f.followee_id > ?""";
        long from = after == null ? Long.MIN_VALUE : after;
        if (with == null) {
            return longs(sql + " ORDER BY f.followee_id LIMIT ?", uid, from, limit);
        }
        return longs(sql + """
                 AND EXISTS (SELECT 1 FROM social_follow w1 WHERE w1.follower_id = ? AND w1.followee_id = f.followee_id)
                 AND EXISTS (SELECT 1 FROM social_follow w2 WHERE w2.follower_id = f.followee_id AND w2.followee_id = ?)
                ORDER BY f.followee_id LIMIT ?""", uid, from, with, with, limit);
    }

    /**
     * A list of ids over plain JDBC: these pages are read on every presence change (a login, a
     * logout), where an ORM session per query costs more than the query.
     */
    private List<Long> longs(String sql, Object... parameters) {
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            SqlArrays.bind(c, ps, parameters); // a Long[] goes as a bigint[]
            List<Long> ids = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
            return ids;
        } catch (SQLException e) {
            throw new IllegalStateException("social graph query failed: " + e.getMessage(), e);
        }
    }

    private void checkPeer(long me, long peer) {
        if (me == peer) {
            throw ProblemException.badRequest("self-relation", "That would be a relation with yourself.");
        }
        accounts.requireActiveUser(peer);
    }

    private static ProblemException blocked() {
        return ProblemException.forbidden("This user does not accept that from you.");
    }

    private static List<Long> ids(List<?> rows) {
        return rows.stream().map(o -> ((Number) o).longValue()).toList();
    }
}
