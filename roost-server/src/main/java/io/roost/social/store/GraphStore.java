package io.roost.social.store;

import io.roost.platform.metrics.StoreTimed;
import io.roost.platform.store.Jdbc;
import io.roost.platform.store.SqlArrays;
import io.roost.social.SocialGraph.Counts;
import io.roost.social.SocialGraph.Permission;
import io.roost.social.SocialGraph.Relation;
import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The social graph's rows: follow edges and their counters (social_follow, social_counts), blocks
 * (social_block) and per-contact permissions (social_permission). No transaction of its own: every
 * statement runs in its caller's.
 */
@StoreTimed
@ApplicationScoped
public class GraphStore {

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    @Resource(lookup = "java:jboss/datasources/RoostDS")
    DataSource dataSource;

    // ---- follow edges ----

    /** Writes the edge {@code a} → {@code b}; true if it is new (then, and only then, the counters move). */
    public boolean follow(long a, long b) {
        int n = em.createNativeQuery("INSERT INTO social_follow (follower_id, followee_id) VALUES (:a, :b) ON CONFLICT DO NOTHING")
                .setParameter("a", a).setParameter("b", b).executeUpdate();
        if (n == 1) {
            bumpCounts(a, b, 1);
        }
        return n == 1;
    }

    /** Deletes the edge {@code a} → {@code b}; true if there was one (then, and only then, the counters move). */
    public boolean unfollow(long a, long b) {
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

    // ---- blocks and permissions ----

    public boolean block(long blocker, long blocked) {
        return em.createNativeQuery("INSERT INTO social_block (blocker_id, blocked_id) VALUES (:a, :b) ON CONFLICT DO NOTHING")
                .setParameter("a", blocker).setParameter("b", blocked).executeUpdate() == 1;
    }

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

    /**
     * Of the pairs {@code (a[i], b[i])}, those where either side blocks the other, as {@code {a, b}}:
     * one statement for a batch of messages.
     */
    public List<long[]> blockedAmong(Long[] a, Long[] b) {
        return Jdbc.query(dataSource, "SELECT p.x, p.y FROM unnest(?::int8[], ?::int8[]) AS p(x, y) WHERE " + blockedEitherWaySql("p.x", "p.y"),
                rs -> new long[] {rs.getLong(1), rs.getLong(2)}, a, b);
    }

    /**
     * SQL that is true where the users {@code a} or {@code b} (SQL expressions) block each other,
     * either way: the one definition, for {@link #blockedAmong} and for another module's statement
     * that checks it in passing. Two primary-key probes.
     */
    public static String blockedEitherWaySql(String a, String b) {
        return ("(EXISTS (SELECT 1 FROM social_block WHERE blocker_id = %1$s AND blocked_id = %2$s)"
                + " OR EXISTS (SELECT 1 FROM social_block WHERE blocker_id = %2$s AND blocked_id = %1$s))").formatted(a, b);
    }

    /** SQL that is true where user {@code follower} follows user {@code followee} (SQL expressions): one primary-key probe. */
    public static String followsSql(String follower, String followee) {
        return "EXISTS (SELECT 1 FROM social_follow WHERE follower_id = %1$s AND followee_id = %2$s)".formatted(follower, followee);
    }

    /** One primary-key probe. */
    public boolean blocks(long blocker, long blocked) {
        return !em.createNativeQuery("SELECT 1 FROM social_block WHERE blocker_id = :a AND blocked_id = :b")
                .setParameter("a", blocker).setParameter("b", blocked).getResultList().isEmpty();
    }

    public void setPermission(long owner, long peer, Permission p) {
        em.createNativeQuery("""
                        INSERT INTO social_permission (owner_id, peer_id, hide_presence, muted) VALUES (:o, :p, :h, :m)
                        ON CONFLICT (owner_id, peer_id) DO UPDATE SET hide_presence = EXCLUDED.hide_presence, muted = EXCLUDED.muted""")
                .setParameter("o", owner).setParameter("p", peer).setParameter("h", p.hidePresence()).setParameter("m", p.muted())
                .executeUpdate();
    }

    /** The permission {@code owner} gives {@code peer}; both false if never set. */
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
        return hidingPresence("owner_id", owner, "peer_id", peers);
    }

    /** Those among {@code owners} who hide their presence from {@code peer}: a primary-key probe each. */
    public List<Long> hidingFrom(long peer, List<Long> owners) {
        return hidingPresence("peer_id", peer, "owner_id", owners);
    }

    /** The {@code listed} side of the hide-presence permissions between {@code one} and those {@code many}. */
    private List<Long> hidingPresence(String oneColumn, long one, String listed, List<Long> many) {
        if (many.isEmpty()) {
            return List.of();
        }
        return ids(em.createNativeQuery("SELECT " + listed + " FROM social_permission WHERE " + oneColumn + " = :one AND hide_presence AND "
                        + listed + " = ANY(CAST(:many AS bigint[]))")
                .setParameter("one", one).setParameter("many", SqlArrays.bigints(many))
                .getResultList());
    }

    // ---- reads ----

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

    /** One primary-key probe. */
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

    public Counts counts(long uid) {
        List<?> rows = em.createNativeQuery("SELECT followers, following FROM social_counts WHERE uid = :u")
                .setParameter("u", uid).getResultList();
        if (rows.isEmpty()) {
            return new Counts(0, 0);
        }
        Object[] r = (Object[]) rows.get(0);
        return new Counts(((Number) r[0]).longValue(), ((Number) r[1]).longValue());
    }

    // The id pages below go over plain JDBC: they are read on every presence change (a login, a
    // logout), where an ORM session per query costs more than the query.

    /** Those of {@code uids} with at least one follower. */
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

    private List<Long> longs(String sql, Object... parameters) {
        return Jdbc.query(dataSource, sql, rs -> rs.getLong(1), parameters); // a Long[] goes as a bigint[]
    }

    private static List<Long> ids(List<?> rows) {
        return rows.stream().map(o -> ((Number) o).longValue()).toList();
    }
}
