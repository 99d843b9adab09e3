package io.roost.group.store;

import io.roost.platform.metrics.StoreTimed;
import io.roost.group.GroupService.Group;
import io.roost.group.GroupService.InfoChange;
import io.roost.group.GroupService.Member;
import io.roost.group.GroupService.Request;
import io.roost.group.GroupService.Role;
import io.roost.platform.store.LikePatterns;
import io.roost.platform.store.SqlTimes;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Groups and channels (grp), their members (group_member), join requests and invitations
 * (group_request) and audit events (group_event). A member change moves the group's member count
 * and version in the same call. No transaction of its own: every statement runs in its caller's,
 * which locks the group row ({@link #lock}) before it changes anything of the group.
 */
@StoreTimed
@ApplicationScoped
public class GroupStore {

    private static final String GROUP_COLUMNS = columns("");
    private static final String REQUEST_COLUMNS =
            "id, group_id, uid, kind, inviter_id, message, status, answered_by, note, created_at";
    /** A member; a mute that has run out reads as none; for good ('infinity') as {@link java.time.OffsetDateTime#MAX}. */
    private static final String MEMBER_COLUMNS = """
            uid, role, nick, avatar_url, joined_at, CASE WHEN muted_until > now() AND muted_until <> 'infinity' THEN muted_until END,
            muted_until = 'infinity'""";
    private static final String PUBLIC_ACTIVE = " FROM grp WHERE status = 'ACTIVE' AND visibility = 'public'";

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    @jakarta.annotation.Resource(lookup = "java:jboss/datasources/RoostDS")
    javax.sql.DataSource dataSource;

    /** The group's type, status, visibility and member count, and the rights of those of {@code uids} who are members. */
    public Optional<io.roost.group.GroupService.SendContext> sendContext(long groupId, java.util.Collection<Long> uids) {
        String[] head = new String[3];
        int[] count = {-1};
        java.util.Map<Long, io.roost.group.GroupService.SendRight> rights = new java.util.HashMap<>();
        io.roost.platform.store.Jdbc.query(dataSource, """
                SELECT g.group_type, g.status, g.visibility, g.member_count, m.uid, m.role, m.muted_until, m.muted_until = 'infinity'
                FROM grp g LEFT JOIN group_member m ON m.group_id = g.id AND m.uid = ANY(?)
                WHERE g.id = ?""", rs -> {
                    head[0] = rs.getString(1);
                    head[1] = rs.getString(2);
                    head[2] = rs.getString(3);
                    count[0] = rs.getInt(4);
                    long uid = rs.getLong(5);
                    if (!rs.wasNull()) {
                        java.time.OffsetDateTime until = rs.getBoolean(8) ? java.time.OffsetDateTime.MAX
                                : rs.getObject(7, java.time.OffsetDateTime.class);
                        rights.put(uid, new io.roost.group.GroupService.SendRight(uid, Role.valueOf(rs.getString(6)), until));
                    }
                    return null;
                }, uids.toArray(Long[]::new), groupId);
        return count[0] < 0 ? Optional.empty()
                : Optional.of(new io.roost.group.GroupService.SendContext(head[0], head[1], head[2], count[0], rights));
    }

    // ---- groups ----

    public void insert(long id, String name, String notice, String iconUrl, List<String> tags, String type, String joinPolicy,
                       String visibility, long owner) {
        em.createNativeQuery("""
                        INSERT INTO grp (id, name, notice, icon_url, tags, group_type, join_policy, visibility, owner_id, member_count)
                        VALUES (:id, :n, :no, :i, CAST(:t AS varchar[]), :ty, :jp, :v, :o, 0)""")
                .setParameter("id", id).setParameter("n", name).setParameter("no", notice).setParameter("i", iconUrl)
                .setParameter("t", pgArray(tags)).setParameter("ty", type).setParameter("jp", joinPolicy)
                .setParameter("v", visibility).setParameter("o", owner)
                .executeUpdate();
    }

    public void dissolve(long groupId) {
        em.createNativeQuery("UPDATE grp SET status = 'DISSOLVED', version = version + 1, updated_at = now() WHERE id = :g")
                .setParameter("g", groupId).executeUpdate();
    }

    /** Sets what {@code c} gives (a null field stays as it is). */
    public void updateInfo(long groupId, InfoChange c) {
        em.createNativeQuery("""
                        UPDATE grp SET name = coalesce(:n, name), notice = coalesce(:no, notice), icon_url = coalesce(:i, icon_url),
                            tags = coalesce(CAST(:t AS varchar[]), tags), join_policy = coalesce(:jp, join_policy),
                            visibility = coalesce(:v, visibility), version = version + 1, updated_at = now()
                        WHERE id = :g""")
                .setParameter("n", c.name()).setParameter("no", c.notice()).setParameter("i", c.iconUrl())
                .setParameter("t", c.tags() == null ? null : pgArray(c.tags())).setParameter("jp", c.joinPolicy())
                .setParameter("v", c.visibility()).setParameter("g", groupId).executeUpdate();
    }

    public void setOwner(long groupId, long owner) {
        em.createNativeQuery("UPDATE grp SET owner_id = :o WHERE id = :g").setParameter("o", owner)
                .setParameter("g", groupId).executeUpdate();
    }

    public Optional<Group> find(long id) {
        return first(groups(em.createNativeQuery("SELECT " + GROUP_COLUMNS + " FROM grp WHERE id = :id").setParameter("id", id)
                .getResultList()));
    }

    /** The group with its row locked until the caller's transaction ends. */
    public Optional<Group> lock(long id) {
        return first(groups(em.createNativeQuery("SELECT " + GROUP_COLUMNS + " FROM grp WHERE id = :id FOR UPDATE")
                .setParameter("id", id).getResultList()));
    }

    /** The groups a user is in, one index range on (uid, group_id). */
    public List<Group> groupsOf(long uid, Long after, int limit) {
        return groups(em.createNativeQuery("SELECT " + columns("g") + " FROM group_member m JOIN grp g ON g.id = m.group_id"
                        + " WHERE m.uid = :u AND m.group_id > :after ORDER BY m.group_id LIMIT :n")
                .setParameter("u", uid).setParameter("after", after == null ? Long.MIN_VALUE : after)
                .setParameter("n", limit).getResultList());
    }

    /** Public active groups whose name starts with {@code prefix}, keyset-paged on (lower(name), id). */
    public List<Group> publicByPrefix(String prefix, String afterName, Long afterId, int limit) {
        return groups(em.createNativeQuery("SELECT " + GROUP_COLUMNS + PUBLIC_ACTIVE + " AND lower(name) LIKE :p ESCAPE '\\'"
                        + " AND (lower(name), id) > (:an, :ai) ORDER BY lower(name), id LIMIT :n")
                .setParameter("p", LikePatterns.startingWith(prefix.toLowerCase()))
                .setParameter("an", afterName == null ? "" : afterName.toLowerCase())
                .setParameter("ai", afterId == null ? Long.MIN_VALUE : afterId)
                .setParameter("n", limit).getResultList());
    }

    /** Public active groups with the tag, keyset-paged on id. */
    public List<Group> publicByTag(String tag, Long afterId, int limit) {
        return groups(em.createNativeQuery("SELECT " + GROUP_COLUMNS + PUBLIC_ACTIVE
                        + " AND tags @> CAST(:t AS varchar[]) AND id > :ai ORDER BY id LIMIT :n")
                .setParameter("t", pgArray(List.of(tag))).setParameter("ai", afterId == null ? Long.MIN_VALUE : afterId)
                .setParameter("n", limit).getResultList());
    }

    /** A random sample of public active groups: from a random point on the indexed {@code sample_key}, wrapping around. */
    public List<Group> publicSample(int limit) {
        double start = Math.random();
        List<Group> sample = new ArrayList<>(groups(em.createNativeQuery("SELECT " + GROUP_COLUMNS + PUBLIC_ACTIVE
                        + " AND sample_key >= :s ORDER BY sample_key LIMIT :n")
                .setParameter("s", start).setParameter("n", limit).getResultList()));
        if (sample.size() < limit) {
            sample.addAll(groups(em.createNativeQuery("SELECT " + GROUP_COLUMNS + PUBLIC_ACTIVE
                            + " AND sample_key < :s ORDER BY sample_key LIMIT :n")
                    .setParameter("s", start).setParameter("n", limit - sample.size()).getResultList()));
        }
        return sample;
    }

    /** Every group (hidden and dissolved too) whose name starts with {@code prefix}, by id after {@code afterId}. */
    public List<Group> allByPrefix(String prefix, Long afterId, int limit) {
        return groups(em.createNativeQuery("SELECT " + GROUP_COLUMNS
                        + " FROM grp WHERE lower(name) LIKE :p ESCAPE '\\' AND id > :ai ORDER BY id LIMIT :n")
                .setParameter("p", LikePatterns.startingWith(prefix.toLowerCase()))
                .setParameter("ai", afterId == null ? Long.MIN_VALUE : afterId)
                .setParameter("n", limit).getResultList());
    }

    // ---- members ----

    public Optional<Role> role(long groupId, long uid) {
        return em.createNativeQuery("SELECT role FROM group_member WHERE group_id = :g AND uid = :u")
                .setParameter("g", groupId).setParameter("u", uid).getResultList().stream()
                .map(r -> Role.valueOf(r.toString())).findFirst();
    }

    public List<Member> members(long groupId, Long after, int limit) {
        return members(em.createNativeQuery("SELECT " + MEMBER_COLUMNS
                        + " FROM group_member WHERE group_id = :g AND uid > :after ORDER BY uid LIMIT :n")
                .setParameter("g", groupId).setParameter("after", after == null ? Long.MIN_VALUE : after)
                .setParameter("n", limit).getResultList());
    }

    public Optional<Member> member(long groupId, long uid) {
        return members(em.createNativeQuery("SELECT " + MEMBER_COLUMNS + " FROM group_member WHERE group_id = :g AND uid = :u")
                .setParameter("g", groupId).setParameter("u", uid).getResultList()).stream().findFirst();
    }

    private static List<Member> members(List<?> rows) {
        return rows.stream().map(o -> {
            Object[] r = (Object[]) o;
            return new Member(((Number) r[0]).longValue(), Role.valueOf(r[1].toString()), (String) r[2], (String) r[3],
                    SqlTimes.of(r[4]), Boolean.TRUE.equals(r[6]) ? java.time.OffsetDateTime.MAX : SqlTimes.of(r[5]));
        }).toList();
    }

    /** The ids of the group's members whose role is one of {@code roles}. */
    public List<Long> memberIds(long groupId, Set<Role> roles) {
        return em.createNativeQuery("SELECT uid FROM group_member WHERE group_id = :g AND role IN (:r)")
                .setParameter("g", groupId).setParameter("r", roles.stream().map(Role::name).toList()).getResultList().stream()
                .map(o -> ((Number) o).longValue()).toList();
    }

    public void insertMember(long groupId, long uid, Role role) {
        em.createNativeQuery("INSERT INTO group_member (group_id, uid, role) VALUES (:g, :u, :r)")
                .setParameter("g", groupId).setParameter("u", uid).setParameter("r", role.name()).executeUpdate();
        em.createNativeQuery("UPDATE grp SET member_count = member_count + 1, version = version + 1, updated_at = now() WHERE id = :g")
                .setParameter("g", groupId).executeUpdate();
    }

    public void removeMember(long groupId, long uid) {
        em.createNativeQuery("DELETE FROM group_member WHERE group_id = :g AND uid = :u")
                .setParameter("g", groupId).setParameter("u", uid).executeUpdate();
        em.createNativeQuery("UPDATE grp SET member_count = member_count - 1, version = version + 1, updated_at = now() WHERE id = :g")
                .setParameter("g", groupId).executeUpdate();
    }

    public void setRole(long groupId, long uid, Role role) {
        em.createNativeQuery("UPDATE group_member SET role = :r, version = version + 1 WHERE group_id = :g AND uid = :u")
                .setParameter("r", role.name()).setParameter("g", groupId).setParameter("u", uid).executeUpdate();
        em.createNativeQuery("UPDATE grp SET version = version + 1, updated_at = now() WHERE id = :g")
                .setParameter("g", groupId).executeUpdate();
    }

    /** A member's own nick and avatar in the group (a null field stays as it is); false if not a member. */
    public boolean updateMember(long groupId, long uid, String nick, String avatarUrl) {
        return em.createNativeQuery("""
                        UPDATE group_member SET nick = coalesce(:n, nick), avatar_url = coalesce(:a, avatar_url), version = version + 1
                        WHERE group_id = :g AND uid = :u""")
                .setParameter("n", nick).setParameter("a", avatarUrl).setParameter("g", groupId).setParameter("u", uid)
                .executeUpdate() == 1;
    }

    /** Until when an admin muted the member (null: unmuted; {@link java.time.OffsetDateTime#MAX}: for good). */
    public void setMutedUntil(long groupId, long uid, java.time.OffsetDateTime until) {
        em.createNativeQuery("UPDATE group_member SET muted_until = CAST(:t AS timestamptz), version = version + 1 WHERE group_id = :g AND uid = :u")
                .setParameter("t", until == null ? null : until.equals(java.time.OffsetDateTime.MAX) ? "infinity" : until.toString())
                .setParameter("g", groupId).setParameter("u", uid).executeUpdate();
    }

    /** The group's type (chat or channel). */
    public String type(long groupId) {
        return (String) em.createNativeQuery("SELECT group_type FROM grp WHERE id = :g").setParameter("g", groupId).getSingleResult();
    }

    // ---- requests and invitations ----

    /** The pending request of this kind for (group, user): the one there is, or a new one with {@code id}. */
    public Request pendingOrNew(long id, long groupId, long uid, String kind, Long inviter, String message) {
        em.createNativeQuery("""
                        INSERT INTO group_request (id, group_id, uid, kind, inviter_id, message)
                        VALUES (:id, :g, :u, :k, :i, :m) ON CONFLICT DO NOTHING""")
                .setParameter("id", id).setParameter("g", groupId).setParameter("u", uid).setParameter("k", kind)
                .setParameter("i", inviter).setParameter("m", message).executeUpdate();
        return requests(em.createNativeQuery("SELECT " + REQUEST_COLUMNS
                        + " FROM group_request WHERE group_id = :g AND uid = :u AND kind = :k AND status = 'PENDING'")
                .setParameter("g", groupId).setParameter("u", uid).setParameter("k", kind).getResultList()).get(0);
    }

    /** Answers a pending request: one conditional update, so of two answers exactly one applies (true). */
    public boolean answer(long requestId, boolean accept, long answerer, String note) {
        return em.createNativeQuery("""
                        UPDATE group_request SET status = :s, answered_by = :a, note = :n, answered_at = now()
                        WHERE id = :id AND status = 'PENDING'""")
                .setParameter("s", accept ? "ACCEPTED" : "REJECTED").setParameter("a", answerer).setParameter("n", note)
                .setParameter("id", requestId).executeUpdate() == 1;
    }

    public Optional<Request> findRequest(long id) {
        return first(requests(em.createNativeQuery("SELECT " + REQUEST_COLUMNS + " FROM group_request WHERE id = :id")
                .setParameter("id", id).getResultList()));
    }

    /** Pending join requests of a group, newest first, keyset-paged by id. */
    public List<Request> pendingJoins(long groupId, Long before, int limit) {
        return requests(em.createNativeQuery("SELECT " + REQUEST_COLUMNS + " FROM group_request WHERE group_id = :g AND kind = 'join'"
                        + " AND status = 'PENDING' AND id < :b ORDER BY id DESC LIMIT :n")
                .setParameter("g", groupId).setParameter("b", before == null ? Long.MAX_VALUE : before)
                .setParameter("n", limit).getResultList());
    }

    // ---- events ----

    public void insertEvent(long id, long groupId, long actor, String type, Long target, String detail) {
        em.createNativeQuery("""
                        INSERT INTO group_event (id, group_id, actor_id, event_type, target_id, detail) VALUES (:id, :g, :a, :t, :x, :d)""")
                .setParameter("id", id).setParameter("g", groupId).setParameter("a", actor).setParameter("t", type)
                .setParameter("x", target).setParameter("d", detail).executeUpdate();
    }

    // ---- mapping ----

    /** A varchar[] literal ({"a","b"}) for {@code CAST(? AS varchar[])}; null is the empty array. */
    static String pgArray(List<String> values) {
        if (values == null) {
            return "{}";
        }
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < values.size(); i++) {
            sb.append(i == 0 ? "" : ",").append('"').append(values.get(i).replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        }
        return sb.append('}').toString();
    }

    /** The group columns in {@link #group}'s order; tags joined by a unit separator. */
    private static String columns(String alias) {
        String a = alias.isEmpty() ? "" : alias + ".";
        return String.join(", ", a + "id", a + "name", a + "notice", a + "icon_url", "array_to_string(" + a + "tags, chr(31))",
                a + "group_type", a + "join_policy", a + "visibility", a + "owner_id", a + "status", a + "member_count",
                a + "version", a + "created_at");
    }

    private static List<Group> groups(List<?> rows) {
        return rows.stream().map(r -> group((Object[]) r)).toList();
    }

    private static Group group(Object[] r) {
        String tags = (String) r[4];
        return new Group(((Number) r[0]).longValue(), (String) r[1], (String) r[2], (String) r[3],
                tags == null || tags.isEmpty() ? List.of() : List.of(tags.split("\u001f")), (String) r[5], (String) r[6],
                (String) r[7], ((Number) r[8]).longValue(), (String) r[9], ((Number) r[10]).intValue(),
                ((Number) r[11]).longValue(), SqlTimes.of(r[12]));
    }

    private static List<Request> requests(List<?> rows) {
        return rows.stream().map(o -> {
            Object[] r = (Object[]) o;
            return new Request(((Number) r[0]).longValue(), ((Number) r[1]).longValue(), ((Number) r[2]).longValue(),
                    (String) r[3], r[4] == null ? null : ((Number) r[4]).longValue(), (String) r[5], (String) r[6],
                    r[7] == null ? null : ((Number) r[7]).longValue(), (String) r[8], SqlTimes.of(r[9]));
        }).toList();
    }

    private static <T> Optional<T> first(List<T> rows) {
        return rows.stream().findFirst();
    }
}
