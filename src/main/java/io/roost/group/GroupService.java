package io.roost.group;

import io.roost.identity.AccountService;
import io.roost.platform.delivery.Notice;
import io.roost.platform.ids.IdGenerator;
import io.roost.platform.json.Jsonp;
import io.roost.platform.outbox.OutboxPublisher;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.store.SqlTimes;
import io.roost.presence.session.DeviceSessions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Groups and channels: the module's public face. Every change locks the group row
 * first, checks the caller's role under that lock, changes what it changes, bumps the group's
 * version, writes a {@code group_event} and publishes it to {@code roost-group-events} through the
 * outbox — one transaction, so a refused operation changes nothing and concurrent admin actions
 * serialize per group (a partial unique index keeps exactly one owner besides).
 */
@ApplicationScoped
public class GroupService {

    public static final String EVENTS_TOPIC = "roost-group-events";

    /** Roles, strongest first: owner, admin, read-write, read. */
    public enum Role {
        O, A, W, R;

        boolean atLeast(Role other) {
            return ordinal() <= other.ordinal();
        }
    }

    public record Group(long id, String name, String notice, String iconUrl, List<String> tags, String type,
                        String joinPolicy, String visibility, long ownerId, String status, int memberCount, long version,
                        OffsetDateTime createdAt) {
    }

    public record Member(long uid, Role role, String nick, String avatarUrl, OffsetDateTime joinedAt) {
    }

    public record Request(long id, long groupId, long uid, String kind, Long inviterId, String message, String status,
                          Long answeredBy, String note, OffsetDateTime createdAt) {
    }

    /** What setInfo may change; null leaves a field alone. */
    public record InfoChange(String name, String notice, String iconUrl, List<String> tags, String joinPolicy,
                             String visibility) {
    }

    /** Joining: a member at once (open group), or a pending request (approval). */
    public record JoinOutcome(boolean member, Request request) {
    }

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    @Inject
    IdGenerator ids;

    @Inject
    OutboxPublisher outbox;

    @Inject
    AccountService accounts;

    @Inject
    DeviceSessions sessions;

    @Inject
    Event<Notice> notices;

    @Transactional
    public Group create(long owner, String name, String type, String joinPolicy, String visibility, String notice,
                        String iconUrl, List<String> tags) {
        long id = ids.nextId();
        em.createNativeQuery("""
                        INSERT INTO grp (id, name, notice, icon_url, tags, group_type, join_policy, visibility, owner_id, member_count)
                        VALUES (:id, :n, :no, :i, CAST(:t AS varchar[]), :ty, :jp, :v, :o, 0)""")
                .setParameter("id", id).setParameter("n", name).setParameter("no", notice).setParameter("i", iconUrl)
                .setParameter("t", pgArray(tags)).setParameter("ty", type)
                .setParameter("jp", joinPolicy == null ? "open" : joinPolicy)
                .setParameter("v", visibility == null ? "public" : visibility).setParameter("o", owner)
                .executeUpdate();
        insertMember(id, owner, Role.O);
        record(id, owner, "created", null, name);
        return find(id).orElseThrow();
    }

    @Transactional
    public Group dissolve(long actor, long groupId) {
        return dissolve(actor, groupId, false);
    }

    /** An operator (admin API) dissolves any group; the group event names the operator. */
    @Transactional
    public Group dissolveAsOperator(long operator, long groupId) {
        return dissolve(operator, groupId, true);
    }

    private Group dissolve(long actor, long groupId, boolean operator) {
        Group g = lockActive(groupId);
        if (!operator) {
            requireRole(g, actor, Role.O);
        }
        em.createNativeQuery("UPDATE grp SET status = 'DISSOLVED', version = version + 1, updated_at = now() WHERE id = :g")
                .setParameter("g", groupId).executeUpdate();
        record(groupId, actor, "dissolved", null, null);
        tell(memberIds(groupId), "dissolved", groupId, actor, null);
        return find(groupId).orElseThrow();
    }

    @Transactional
    public Group setInfo(long actor, long groupId, InfoChange c) {
        Group g = lockActive(groupId);
        requireRole(g, actor, c.visibility() != null ? Role.O : Role.A); // visibility is the owner's call
        em.createNativeQuery("""
                        UPDATE grp SET name = coalesce(:n, name), notice = coalesce(:no, notice), icon_url = coalesce(:i, icon_url),
                            tags = coalesce(CAST(:t AS varchar[]), tags), join_policy = coalesce(:jp, join_policy),
                            visibility = coalesce(:v, visibility), version = version + 1, updated_at = now()
                        WHERE id = :g""")
                .setParameter("n", c.name()).setParameter("no", c.notice()).setParameter("i", c.iconUrl())
                .setParameter("t", c.tags() == null ? null : pgArray(c.tags())).setParameter("jp", c.joinPolicy())
                .setParameter("v", c.visibility()).setParameter("g", groupId).executeUpdate();
        record(groupId, actor, "info_changed", null, null);
        return find(groupId).orElseThrow();
    }

    /** Admins kick W/R members; the owner kicks anyone but itself. */
    @Transactional
    public void kick(long actor, long groupId, long target) {
        Group g = lockActive(groupId);
        Role mine = requireRole(g, actor, Role.A);
        Role theirs = roleOf(groupId, target).orElseThrow(() -> ProblemException.notFound("User " + target + " is not a member."));
        if (!mine.atLeast(theirs) || mine == theirs) {
            throw ProblemException.forbidden("You may only remove members with a weaker role than yours.");
        }
        removeMember(groupId, target);
        record(groupId, actor, "kicked", target, null);
        tell(List.of(target), "kicked", groupId, actor, null);
    }

    /** Hidden groups: admins invite; public groups: any member. */
    @Transactional
    public Request invite(long actor, long groupId, long target, String message) {
        Group g = lockActive(groupId);
        requireRole(g, actor, g.visibility().equals("hidden") ? Role.A : Role.R);
        accounts.requireActiveUser(target);
        if (roleOf(groupId, target).isPresent()) {
            throw ProblemException.conflict("already-member", "User " + target + " is a member already.");
        }
        Request r = pendingOrNew(groupId, target, "invite", actor, message);
        record(groupId, actor, "invited", target, null);
        tell(List.of(target), "invited", groupId, actor, r);
        return r;
    }

    @Transactional
    public Request answerInvite(long uid, long requestId, boolean accept) {
        Request r = findRequest(requestId).filter(x -> x.uid() == uid && x.kind().equals("invite"))
                .orElseThrow(() -> ProblemException.notFound("No invitation " + requestId + " for you"));
        Group g = lockActive(r.groupId());
        Request answered = answer(r, uid, accept, null);
        if (accept && roleOf(g.id(), uid).isEmpty()) {
            insertMember(g.id(), uid, defaultRole(g));
            record(g.id(), uid, "joined", uid, "invitation");
            announceToChat(g, uid, "joined");
        }
        return answered;
    }

    /** Open: a member at once. Approval: a request, sent to one or two online admins. */
    @Transactional
    public JoinOutcome requestJoin(long uid, long groupId, String message) {
        Group g = lockActive(groupId);
        if (roleOf(groupId, uid).isPresent()) {
            throw ProblemException.conflict("already-member", "You are a member already.");
        }
        switch (g.joinPolicy()) {
            case "open" -> {
                insertMember(groupId, uid, defaultRole(g));
                record(groupId, uid, "joined", uid, "open");
                announceToChat(g, uid, "joined");
                return new JoinOutcome(true, null);
            }
            case "invite-only" -> throw ProblemException.forbidden("This group admits members by invitation only.");
            default -> {
                Request r = pendingOrNew(groupId, uid, "join", null, message);
                record(groupId, uid, "join_requested", uid, null);
                List<Long> admins = memberIdsWithRole(groupId, Set.of("O", "A"));
                List<Long> online = new ArrayList<>(sessions.onlineAmong(admins));
                Collections.shuffle(online);
                if (!online.isEmpty()) {
                    tell(online.subList(0, Math.min(2, online.size())), "join_requested", groupId, uid, r);
                }
                return new JoinOutcome(false, r);
            }
        }
    }

    @Transactional
    public Request answerJoin(long actor, long requestId, boolean accept, String note) {
        Request r = findRequest(requestId).filter(x -> x.kind().equals("join"))
                .orElseThrow(() -> ProblemException.notFound("No join request " + requestId));
        Group g = lockActive(r.groupId());
        requireRole(g, actor, Role.A);
        Request answered = answer(r, actor, accept, note);
        if (accept && roleOf(g.id(), r.uid()).isEmpty()) {
            insertMember(g.id(), r.uid(), defaultRole(g));
            record(g.id(), actor, "joined", r.uid(), "approved");
            announceToChat(g, r.uid(), "joined");
        }
        tell(List.of(r.uid()), accept ? "join_accepted" : "join_rejected", g.id(), actor, answered);
        return answered;
    }

    /** The owner cannot quit (transfer or dissolve first); a chat group hears of it, a channel does not. */
    @Transactional
    public void quit(long uid, long groupId) {
        Group g = lockActive(groupId);
        Role role = roleOf(groupId, uid).orElseThrow(() -> ProblemException.notFound("You are not a member."));
        if (role == Role.O) {
            throw ProblemException.conflict("owner-cannot-quit", "Transfer the ownership or dissolve the group first.");
        }
        removeMember(groupId, uid);
        record(groupId, uid, "quit", uid, null);
        announceToChat(g, uid, "quit");
    }

    @Transactional
    public void setAdmin(long actor, long groupId, long target, boolean admin) {
        Group g = lockActive(groupId);
        requireRole(g, actor, Role.O);
        Role theirs = roleOf(groupId, target).orElseThrow(() -> ProblemException.notFound("User " + target + " is not a member."));
        if (theirs == Role.O) {
            throw ProblemException.conflict("is-owner", "The owner's role changes only by a transfer.");
        }
        Role next = admin ? Role.A : defaultRole(g);
        setRole(groupId, target, next);
        record(groupId, actor, admin ? "admin_added" : "admin_removed", target, null);
    }

    /** Both roles change in this one transaction (old owner becomes admin); the group hears of it. */
    @Transactional
    public Group transferOwner(long actor, long groupId, long target) {
        return transferOwner(actor, groupId, target, false);
    }

    /** An operator (admin API) hands any group to one of its members; the old owner becomes admin. */
    @Transactional
    public Group transferOwnerAsOperator(long operator, long groupId, long target) {
        return transferOwner(operator, groupId, target, true);
    }

    private Group transferOwner(long actor, long groupId, long target, boolean operator) {
        Group g = lockActive(groupId);
        if (!operator) {
            requireRole(g, actor, Role.O); // so the actor is the owner
        }
        if (target == g.ownerId()) {
            throw ProblemException.badRequest("self-transfer", "User " + target + " owns the group already.");
        }
        roleOf(groupId, target).orElseThrow(() -> ProblemException.notFound("User " + target + " is not a member."));
        setRole(groupId, g.ownerId(), Role.A); // demote first: the one-owner index is checked per statement
        setRole(groupId, target, Role.O);
        em.createNativeQuery("UPDATE grp SET owner_id = :o WHERE id = :g").setParameter("o", target)
                .setParameter("g", groupId).executeUpdate();
        record(groupId, actor, "owner_transferred", target, null);
        tell(memberIds(groupId), "owner_transferred", groupId, actor, null);
        return find(groupId).orElseThrow();
    }

    @Transactional
    public Member setMyInfo(long uid, long groupId, String nick, String avatarUrl) {
        lockActive(groupId);
        int n = em.createNativeQuery("""
                        UPDATE group_member SET nick = coalesce(:n, nick), avatar_url = coalesce(:a, avatar_url), version = version + 1
                        WHERE group_id = :g AND uid = :u""")
                .setParameter("n", nick).setParameter("a", avatarUrl).setParameter("g", groupId).setParameter("u", uid)
                .executeUpdate();
        if (n == 0) {
            throw ProblemException.notFound("You are not a member.");
        }
        return members(groupId, uid - 1, 1).get(0);
    }

    // ---- reads ----

    public Optional<Group> find(long id) {
        return em.createNativeQuery("SELECT " + GROUP_COLUMNS + " FROM grp WHERE id = :id").setParameter("id", id)
                .getResultList().stream().map(r -> group((Object[]) r)).findFirst();
    }

    /** A group the caller may see: public ones, and hidden ones to their members. */
    public Group visible(long caller, long id) {
        Group g = find(id).orElseThrow(() -> ProblemException.notFound("No group " + id));
        if (g.visibility().equals("hidden") && roleOf(id, caller).isEmpty()) {
            throw ProblemException.notFound("No group " + id);
        }
        return g;
    }

    public Optional<Role> roleOf(long groupId, long uid) {
        return em.createNativeQuery("SELECT role FROM group_member WHERE group_id = :g AND uid = :u")
                .setParameter("g", groupId).setParameter("u", uid).getResultList().stream()
                .map(r -> Role.valueOf(r.toString())).findFirst();
    }

    public List<Member> members(long groupId, Long after, int limit) {
        List<?> rows = em.createNativeQuery("""
                        SELECT uid, role, nick, avatar_url, joined_at FROM group_member WHERE group_id = :g AND uid > :after
                        ORDER BY uid LIMIT :n""")
                .setParameter("g", groupId).setParameter("after", after == null ? Long.MIN_VALUE : after)
                .setParameter("n", limit).getResultList();
        return rows.stream().map(o -> {
            Object[] r = (Object[]) o;
            return new Member(((Number) r[0]).longValue(), Role.valueOf(r[1].toString()), (String) r[2], (String) r[3],
                    SqlTimes.of(r[4]));
        }).toList();
    }

    /** The groups a user is in, one index range on (uid, group_id). */
    public List<Group> groupsOf(long uid, Long after, int limit) {
        return em.createNativeQuery("SELECT " + columns("g") + " FROM group_member m JOIN grp g ON g.id = m.group_id"
                        + " WHERE m.uid = :u AND m.group_id > :after ORDER BY m.group_id LIMIT :n")
                .setParameter("u", uid).setParameter("after", after == null ? Long.MIN_VALUE : after)
                .setParameter("n", limit).getResultList().stream().map(r -> group((Object[]) r)).toList();
    }

    public List<Request> pendingJoins(long actor, long groupId, Long before, int limit) {
        Group g = find(groupId).orElseThrow(() -> ProblemException.notFound("No group " + groupId));
        requireRole(g, actor, Role.A);
        return em.createNativeQuery("SELECT " + REQUEST_COLUMNS + " FROM group_request WHERE group_id = :g AND kind = 'join'"
                        + " AND status = 'PENDING' AND id < :b ORDER BY id DESC LIMIT :n")
                .setParameter("g", groupId).setParameter("b", before == null ? Long.MAX_VALUE : before)
                .setParameter("n", limit).getResultList().stream().map(r -> request((Object[]) r)).toList();
    }

    /**
     * Public active groups: by name prefix (keyset on name, id), by tag (keyset on id), or with
     * neither a random sample (a random point on the indexed {@code sample_key}, wrapping around).
     */
    public List<Group> search(String prefix, String tag, String afterName, Long afterId, int limit) {
        String where = " FROM grp WHERE status = 'ACTIVE' AND visibility = 'public'";
        if (prefix != null) {
            return em.createNativeQuery("SELECT " + GROUP_COLUMNS + where + " AND lower(name) LIKE :p ESCAPE '\\'"
                            + " AND (lower(name), id) > (:an, :ai) ORDER BY lower(name), id LIMIT :n")
                    .setParameter("p", likePrefix(prefix))
                    .setParameter("an", afterName == null ? "" : afterName.toLowerCase())
                    .setParameter("ai", afterId == null ? Long.MIN_VALUE : afterId)
                    .setParameter("n", limit).getResultList().stream().map(r -> group((Object[]) r)).toList();
        }
        if (tag != null) {
            return em.createNativeQuery("SELECT " + GROUP_COLUMNS + where
                            + " AND tags @> CAST(:t AS varchar[]) AND id > :ai ORDER BY id LIMIT :n")
                    .setParameter("t", pgArray(List.of(tag))).setParameter("ai", afterId == null ? Long.MIN_VALUE : afterId)
                    .setParameter("n", limit).getResultList().stream().map(r -> group((Object[]) r)).toList();
        }
        double start = Math.random();
        List<Group> sample = new ArrayList<>(em.createNativeQuery("SELECT " + GROUP_COLUMNS + where
                        + " AND sample_key >= :s ORDER BY sample_key LIMIT :n")
                .setParameter("s", start).setParameter("n", limit).getResultList().stream().map(r -> group((Object[]) r)).toList());
        if (sample.size() < limit) {
            sample.addAll(em.createNativeQuery("SELECT " + GROUP_COLUMNS + where + " AND sample_key < :s ORDER BY sample_key LIMIT :n")
                    .setParameter("s", start).setParameter("n", limit - sample.size()).getResultList().stream()
                    .map(r -> group((Object[]) r)).toList());
        }
        return sample;
    }

    /** Every group (hidden and dissolved too) whose name starts with {@code prefix}, or all, by id after {@code afterId}: operators only. */
    public List<Group> searchAll(String prefix, Long afterId, int limit) {
        return em.createNativeQuery("SELECT " + GROUP_COLUMNS + " FROM grp WHERE lower(name) LIKE :p ESCAPE '\\' AND id > :ai ORDER BY id LIMIT :n")
                .setParameter("p", likePrefix(prefix == null ? "" : prefix))
                .setParameter("ai", afterId == null ? Long.MIN_VALUE : afterId)
                .setParameter("n", limit).getResultList().stream().map(r -> group((Object[]) r)).toList();
    }

    // ---- internals ----

    /** A LIKE pattern matching names that start with {@code prefix} (lower case, wildcards escaped). */
    private static String likePrefix(String prefix) {
        return prefix.toLowerCase().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%";
    }

    private Group lockActive(long groupId) {
        List<?> rows = em.createNativeQuery("SELECT " + GROUP_COLUMNS + " FROM grp WHERE id = :id FOR UPDATE")
                .setParameter("id", groupId).getResultList();
        if (rows.isEmpty()) {
            throw ProblemException.notFound("No group " + groupId);
        }
        Group g = group((Object[]) rows.get(0));
        if (!g.status().equals("ACTIVE")) {
            throw ProblemException.conflict("group-dissolved", "Group " + groupId + " is dissolved: its history is read-only.");
        }
        return g;
    }

    /** 403 unless the caller's role is at least {@code needed}; a non-member of a hidden group gets 404. */
    private Role requireRole(Group g, long uid, Role needed) {
        Optional<Role> role = roleOf(g.id(), uid);
        if (role.isEmpty()) {
            if (g.visibility().equals("hidden")) {
                throw ProblemException.notFound("No group " + g.id());
            }
            throw ProblemException.forbidden("You are not a member of group " + g.id() + ".");
        }
        if (!role.get().atLeast(needed)) {
            throw ProblemException.forbidden("This needs the role " + needed + " or stronger in group " + g.id() + ".");
        }
        return role.get();
    }

    private static Role defaultRole(Group g) {
        return g.type().equals("channel") ? Role.R : Role.W;
    }

    private void insertMember(long groupId, long uid, Role role) {
        em.createNativeQuery("INSERT INTO group_member (group_id, uid, role) VALUES (:g, :u, :r)")
                .setParameter("g", groupId).setParameter("u", uid).setParameter("r", role.name()).executeUpdate();
        em.createNativeQuery("UPDATE grp SET member_count = member_count + 1, version = version + 1, updated_at = now() WHERE id = :g")
                .setParameter("g", groupId).executeUpdate();
    }

    private void removeMember(long groupId, long uid) {
        em.createNativeQuery("DELETE FROM group_member WHERE group_id = :g AND uid = :u")
                .setParameter("g", groupId).setParameter("u", uid).executeUpdate();
        em.createNativeQuery("UPDATE grp SET member_count = member_count - 1, version = version + 1, updated_at = now() WHERE id = :g")
                .setParameter("g", groupId).executeUpdate();
    }

    private void setRole(long groupId, long uid, Role role) {
        em.createNativeQuery("UPDATE group_member SET role = :r, version = version + 1 WHERE group_id = :g AND uid = :u")
                .setParameter("r", role.name()).setParameter("g", groupId).setParameter("u", uid).executeUpdate();
        em.createNativeQuery("UPDATE grp SET version = version + 1, updated_at = now() WHERE id = :g")
                .setParameter("g", groupId).executeUpdate();
    }

    private Request pendingOrNew(long groupId, long uid, String kind, Long inviter, String message) {
        em.createNativeQuery("""
                        INSERT INTO group_request (id, group_id, uid, kind, inviter_id, message)
                        VALUES (:id, :g, :u, :k, :i, :m) ON CONFLICT DO NOTHING""")
                .setParameter("id", ids.nextId()).setParameter("g", groupId).setParameter("u", uid).setParameter("k", kind)
                .setParameter("i", inviter).setParameter("m", message).executeUpdate();
        List<?> rows = em.createNativeQuery("SELECT " + REQUEST_COLUMNS
                        + " FROM group_request WHERE group_id = :g AND uid = :u AND kind = :k AND status = 'PENDING'")
                .setParameter("g", groupId).setParameter("u", uid).setParameter("k", kind).getResultList();
        return request((Object[]) rows.get(0));
    }

    /** One conditional update: of two answers to a request exactly one applies. */
    private Request answer(Request r, long answerer, boolean accept, String note) {
        int n = em.createNativeQuery("""
                        UPDATE group_request SET status = :s, answered_by = :a, note = :n, answered_at = now()
                        WHERE id = :id AND status = 'PENDING'""")
                .setParameter("s", accept ? "ACCEPTED" : "REJECTED").setParameter("a", answerer).setParameter("n", note)
                .setParameter("id", r.id()).executeUpdate();
        if (n == 0) {
            throw ProblemException.conflict("request-not-pending", "The request was answered already.");
        }
        return findRequest(r.id()).orElseThrow();
    }

    public Optional<Request> findRequest(long id) {
        return em.createNativeQuery("SELECT " + REQUEST_COLUMNS + " FROM group_request WHERE id = :id").setParameter("id", id)
                .getResultList().stream().map(r -> request((Object[]) r)).findFirst();
    }

    private List<Long> memberIds(long groupId) {
        return memberIdsWithRole(groupId, Set.of("O", "A", "W", "R"));
    }

    private List<Long> memberIdsWithRole(long groupId, Set<String> roles) {
        return em.createNativeQuery("SELECT uid FROM group_member WHERE group_id = :g AND role IN (:r)")
                .setParameter("g", groupId).setParameter("r", roles).getResultList().stream()
                .map(o -> ((Number) o).longValue()).toList();
    }

    /** A chat group hears who joined or quit; a channel does not. */
    private void announceToChat(Group g, long uid, String what) {
        if (g.type().equals("chat")) {
            tell(memberIds(g.id()), what, g.id(), uid, null);
        }
    }

    private void record(long groupId, long actor, String type, Long target, String detail) {
        long id = ids.nextId();
        em.createNativeQuery("""
                        INSERT INTO group_event (id, group_id, actor_id, event_type, target_id, detail) VALUES (:id, :g, :a, :t, :x, :d)""")
                .setParameter("id", id).setParameter("g", groupId).setParameter("a", actor).setParameter("t", type)
                .setParameter("x", target).setParameter("d", detail).executeUpdate();
        var body = Jsonp.PROVIDER.createObjectBuilder().add("eventId", Long.toString(id)).add("groupId", Long.toString(groupId))
                .add("actor", Long.toString(actor)).add("type", type);
        if (target != null) {
            body.add("target", Long.toString(target));
        }
        outbox.publish(EVENTS_TOPIC, type, Long.toString(groupId), body.build().toString());
    }

    /** A groupOp frame to these users' live devices, after commit. */
    private void tell(List<Long> uids, String op, long groupId, long actor, Request r) {
        if (uids.isEmpty()) {
            return;
        }
        var body = Jsonp.PROVIDER.createObjectBuilder().add("op", op).add("groupId", Long.toString(groupId))
                .add("actor", Long.toString(actor));
        if (r != null) {
            body.add("requestId", Long.toString(r.id())).add("uid", Long.toString(r.uid()))
                    .add("message", r.message() == null ? "" : r.message());
        }
        JsonObject frame = body.build();
        notices.fire(new Notice(uids, "groupOp", frame));
    }

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

    private static final String GROUP_COLUMNS = columns("");
    private static final String REQUEST_COLUMNS =
            "id, group_id, uid, kind, inviter_id, message, status, answered_by, note, created_at";

    /** The group columns in {@link #group}'s order; tags joined by a unit separator. */
    private static String columns(String alias) {
        String a = alias.isEmpty() ? "" : alias + ".";
        return String.join(", ", a + "id", a + "name", a + "notice", a + "icon_url", "array_to_string(" + a + "tags, chr(31))",
                a + "group_type", a + "join_policy", a + "visibility", a + "owner_id", a + "status", a + "member_count",
                a + "version", a + "created_at");
    }

    private static Group group(Object[] r) {
        String tags = (String) r[4];
        return new Group(((Number) r[0]).longValue(), (String) r[1], (String) r[2], (String) r[3],
                tags == null || tags.isEmpty() ? List.of() : List.of(tags.split("\u001f")), (String) r[5], (String) r[6],
                (String) r[7], ((Number) r[8]).longValue(), (String) r[9], ((Number) r[10]).intValue(),
                ((Number) r[11]).longValue(), SqlTimes.of(r[12]));
    }

    private static Request request(Object[] r) {
        return new Request(((Number) r[0]).longValue(), ((Number) r[1]).longValue(), ((Number) r[2]).longValue(),
                (String) r[3], r[4] == null ? null : ((Number) r[4]).longValue(), (String) r[5], (String) r[6],
                r[7] == null ? null : ((Number) r[7]).longValue(), (String) r[8], SqlTimes.of(r[9]));
    }
}
