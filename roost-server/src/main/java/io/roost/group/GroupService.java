package io.roost.group;

import io.roost.group.store.GroupStore;
import io.roost.identity.AccountService;
import io.roost.platform.api.Page;
import io.roost.platform.delivery.Notice;
import io.roost.platform.ids.IdGenerator;
import io.roost.platform.ids.Ids;
import io.roost.platform.json.Jsonp;
import io.roost.platform.outbox.OutboxPublisher;
import io.roost.platform.problem.ProblemException;
import io.roost.presence.session.DeviceSessions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

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

    /** The most items a page holds (REST, the admin API and frames). */
    public static final int MAX_LIMIT = 200;

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

    /** A member; {@code mutedUntil} as in {@link SendRight}, null once a mute has run out. */
    public record Member(long uid, Role role, String nick, String avatarUrl, OffsetDateTime joinedAt, OffsetDateTime mutedUntil) {
    }

    /**
     * What decides whether a member may send to the group now: its role, and until when an admin
     * muted it (null: not muted; {@link OffsetDateTime#MAX}: for good).
     */
    public record SendRight(long uid, Role role, OffsetDateTime mutedUntil) {

        public boolean mutedAt(OffsetDateTime now) {
            return mutedUntil != null && mutedUntil.isAfter(now);
        }
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

    @Inject
    GroupStore store;

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

    @Inject
    Event<GroupChanged> changes;

    @Transactional
    public Group create(long owner, String name, String type, String joinPolicy, String visibility, String notice,
                        String iconUrl, List<String> tags) {
        long id = ids.nextId();
        store.insert(id, name, notice, iconUrl, tags, type, joinPolicy == null ? "open" : joinPolicy,
                visibility == null ? "public" : visibility, owner);
        store.insertMember(id, owner, Role.O);
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
        Group g = operator ? lockActive(groupId) : lockActive(groupId, actor);
        if (!operator) {
            requireRole(g, actor, Role.O);
        }
        store.dissolve(groupId);
        record(groupId, actor, "dissolved", null, null);
        tell(memberIds(groupId), "dissolved", groupId, actor, null);
        return find(groupId).orElseThrow();
    }

    @Transactional
    public Group setInfo(long actor, long groupId, InfoChange c) {
        Group g = lockActive(groupId, actor);
        requireRole(g, actor, c.visibility() != null ? Role.O : Role.A); // visibility is the owner's call
        store.updateInfo(groupId, c);
        record(groupId, actor, "info_changed", null, null);
        return find(groupId).orElseThrow();
    }

    /** Admins kick W/R members; the owner kicks anyone but itself. */
    @Transactional
    public void kick(long actor, long groupId, long target) {
        kick(actor, groupId, target, false);
    }

    /** An operator (admin API) removes any member but the owner from any group; the group event names the operator. */
    @Transactional
    public void kickAsOperator(long operator, long groupId, long target) {
        kick(operator, groupId, target, true);
    }

    private void kick(long actor, long groupId, long target, boolean operator) {
        Group g = operator ? lockActive(groupId) : lockActive(groupId, actor);
        requireStronger(g, actor, target, operator, "remove");
        store.removeMember(groupId, target);
        record(groupId, actor, "kicked", target, null);
        tell(List.of(target), "kicked", groupId, actor, null);
    }

    /** Hidden groups: admins invite; public groups: any member. */
    @Transactional
    public Request invite(long actor, long groupId, long target, String message) {
        Group g = lockActive(groupId, actor);
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
                .orElseThrow(() -> unknownRequest(requestId)); // another's invitation: as if there were none
        Group g = lockActive(r.groupId());
        Request answered = answer(r, uid, accept, null);
        if (accept && roleOf(g.id(), uid).isEmpty()) {
            store.insertMember(g.id(), uid, defaultRole(g));
            record(g.id(), uid, "joined", uid, "invitation");
            announceToChat(g, uid, "joined");
        }
        return answered;
    }

    /** Open: a member at once. Approval: a request, sent to one or two online admins. */
    @Transactional
    public JoinOutcome requestJoin(long uid, long groupId, String message) {
        Group g = lockActive(groupId, uid); // a hidden group is joined only by an invitation (or an invite link)
        if (roleOf(groupId, uid).isPresent()) {
            throw ProblemException.conflict("already-member", "You are a member already.");
        }
        switch (g.joinPolicy()) {
            case "open" -> {
                store.insertMember(groupId, uid, defaultRole(g));
                record(groupId, uid, "joined", uid, "open");
                announceToChat(g, uid, "joined");
                return new JoinOutcome(true, null);
            }
            case "invite-only" -> throw ProblemException.forbidden("This group admits members by invitation only.");
            default -> {
                Request r = pendingOrNew(groupId, uid, "join", null, message);
                record(groupId, uid, "join_requested", uid, null);
                List<Long> admins = store.memberIds(groupId, EnumSet.of(Role.O, Role.A));
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
                .orElseThrow(() -> unknownRequest(requestId));
        Group g = lockActive(r.groupId(), actor, () -> unknownRequest(requestId)); // a hidden group's request: as if there were none
        requireRole(g, actor, Role.A);
        Request answered = answer(r, actor, accept, note);
        if (accept && roleOf(g.id(), r.uid()).isEmpty()) {
            store.insertMember(g.id(), r.uid(), defaultRole(g));
            record(g.id(), actor, "joined", r.uid(), "approved");
            announceToChat(g, r.uid(), "joined");
        }
        tell(List.of(r.uid()), accept ? "join_accepted" : "join_rejected", g.id(), actor, answered);
        return answered;
    }

    /** The owner cannot quit (transfer or dissolve first); a chat group hears of it, a channel does not. */
    @Transactional
    public void quit(long uid, long groupId) {
        Group g = lockActive(groupId, uid);
        Role role = roleOf(groupId, uid).orElseThrow(() -> ProblemException.notFound("You are not a member."));
        if (role == Role.O) {
            throw ProblemException.conflict("owner-cannot-quit", "Transfer the ownership or dissolve the group first.");
        }
        store.removeMember(groupId, uid);
        record(groupId, uid, "quit", uid, null);
        announceToChat(g, uid, "quit");
    }

    @Transactional
    public void setAdmin(long actor, long groupId, long target, boolean admin) {
        Group g = lockActive(groupId, actor);
        requireRole(g, actor, Role.O);
        Role theirs = roleOf(groupId, target).orElseThrow(() -> ProblemException.notFound("User " + target + " is not a member."));
        if (theirs == Role.O) {
            throw ProblemException.conflict("is-owner", "The owner's role changes only by a transfer.");
        }
        Role next = admin ? Role.A : defaultRole(g);
        store.setRole(groupId, target, next);
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
        Group g = operator ? lockActive(groupId) : lockActive(groupId, actor);
        if (!operator) {
            requireRole(g, actor, Role.O); // so the actor is the owner
        }
        if (target == g.ownerId()) {
            throw ProblemException.badRequest("self-transfer", "User " + target + " owns the group already.");
        }
        roleOf(groupId, target).orElseThrow(() -> ProblemException.notFound("User " + target + " is not a member."));
        store.setRole(groupId, g.ownerId(), Role.A); // demote first: the one-owner index is checked per statement
        store.setRole(groupId, target, Role.O);
        store.setOwner(groupId, target);
        record(groupId, actor, "owner_transferred", target, null);
        tell(memberIds(groupId), "owner_transferred", groupId, actor, null);
        return find(groupId).orElseThrow();
    }

    @Transactional
    public Member setMyInfo(long uid, long groupId, String nick, String avatarUrl) {
        lockActive(groupId, uid);
        if (!store.updateMember(groupId, uid, nick, avatarUrl)) {
            throw ProblemException.notFound("You are not a member.");
        }
        return store.member(groupId, uid).orElseThrow();
    }

    /**
     * An admin mutes a member with a weaker role than its own until {@code until} (null: for good),
     * or unmutes it ({@code mute} false): a muted member reads but may not send until then.
     */
    @Transactional
    public void mute(long actor, long groupId, long target, OffsetDateTime until, boolean mute) {
        mute(actor, groupId, target, until, mute, false);
    }

    /** An operator (admin API) mutes or unmutes any member but the owner in any group; the group event names the operator. */
    @Transactional
    public Member muteAsOperator(long operator, long groupId, long target, OffsetDateTime until, boolean mute) {
        mute(operator, groupId, target, until, mute, true);
        return store.member(groupId, target).orElseThrow();
    }

    private void mute(long actor, long groupId, long target, OffsetDateTime until, boolean mute, boolean operator) {
        Group g = operator ? lockActive(groupId) : lockActive(groupId, actor);
        requireStronger(g, actor, target, operator, "mute");
        if (mute && until != null && !until.isAfter(OffsetDateTime.now())) {
            throw ProblemException.badRequest("invalid-until", "until is a time in the future (or absent: for good).");
        }
        store.setMutedUntil(groupId, target, mute ? (until == null ? OffsetDateTime.MAX : until) : null);
        record(groupId, actor, mute ? "muted" : "unmuted", target, mute && until != null ? until.toString() : null);
    }

    /**
     * 404 unless {@code target} is a member; then 403 unless the actor's role is stronger than the
     * target's (an admin over W and R, the owner over everyone else). An operator needs no role but
     * may not act on the owner (409 {@code is-owner}: the owner changes only by a transfer).
     */
    private void requireStronger(Group g, long actor, long target, boolean operator, String verb) {
        Role mine = operator ? null : requireRole(g, actor, Role.A);
        Role theirs = roleOf(g.id(), target).orElseThrow(() -> ProblemException.notFound("User " + target + " is not a member."));
        if (operator && theirs == Role.O) {
            throw ProblemException.conflict("is-owner", "User " + target + " owns the group: transfer the ownership first.");
        }
        if (!operator && (!mine.atLeast(theirs) || mine == theirs)) {
            throw ProblemException.forbidden("You may only " + verb + " members with a weaker role than yours.");
        }
    }

    /**
     * What a group send checks of the group: its type, status and visibility, and the send rights of
     * those of {@code uids} who are members now — one plain JDBC query (the send writer's serial
     * path), joining its caller's transaction. Empty if there is no such group.
     */
    public Optional<SendContext> sendContext(long groupId, java.util.Collection<Long> uids) {
        return store.sendContext(groupId, uids);
    }

    /** A group as a send checks it, and the rights of the senders and mentioned users who are members. */
    public record SendContext(String type, String status, String visibility, int memberCount, java.util.Map<Long, SendRight> rights) {
    }

    // ---- for GroupInviteLinks: the same lock, checks and records as every other change ----

    /** The active group locked for a change only its admins (and owner) make; to a hidden group's outsider, an unknown id. */
    Group lockForAdmins(long actor, long groupId) {
        Group g = lockActive(groupId, actor);
        requireRole(g, actor, Role.A);
        return g;
    }

    /** The active group locked for someone an admin invited (the holder of an invite link), hidden or not. */
    Group lockForInvitee(long groupId) {
        return lockActive(groupId);
    }

    /** Makes an invitee a member with the group's default role, recorded and announced as every join is. */
    void admitInvitee(Group g, long uid, String how) {
        if (roleOf(g.id(), uid).isPresent()) {
            throw ProblemException.conflict("already-member", "You are a member already.");
        }
        store.insertMember(g.id(), uid, defaultRole(g));
        record(g.id(), uid, "joined", uid, how);
        announceToChat(g, uid, "joined");
    }

    /** A change of the group's own (e.g. its invite links), in its audit log and events. */
    void recordChange(long groupId, long actor, String type, Long target) {
        record(groupId, actor, type, target, null);
    }

    // ---- reads ----

    public Optional<Group> find(long id) {
        return store.find(id);
    }

    /** A group the caller may see: public ones, and hidden ones to their members. */
    public Group visible(long caller, long id) {
        return visible(caller, false, id);
    }

    /**
     * A group the caller may see: public ones, and hidden ones to their members and to callers who
     * act for others (admin, service); to anyone else a hidden group is an id that does not exist.
     */
    public Group visible(long caller, boolean actsForOthers, long id) {
        return find(id).filter(g -> actsForOthers || !hiddenFrom(g, caller)).orElseThrow(() -> unknownGroup(id));
    }

    public Optional<Role> roleOf(long groupId, long uid) {
        return store.role(groupId, uid);
    }

    /** A group's members with roles, for its members (or back ends acting for others), paged by uid. */
    public Page<MemberView> members(long caller, boolean actsForOthers, long groupId, Long after, int limit) {
        visible(caller, actsForOthers, groupId);
        if (roleOf(groupId, caller).isEmpty() && !actsForOthers) {
            throw ProblemException.forbidden("Only members see the member list.");
        }
        int n = Page.checkLimit(limit, MAX_LIMIT);
        return Page.of(store.members(groupId, after, n + 1), n, MemberView::of, MemberView::uid);
    }

    /** Any group's members with roles, whoever asks (the admin API), paged by uid after the cursor {@code after}. */
    public Page<MemberView> members(long groupId, String after, int limit) {
        int n = Page.checkLimit(limit, MAX_LIMIT);
        return Page.of(store.members(groupId, cursor(after), n + 1), n, MemberView::of, MemberView::uid);
    }

    /** The groups a user is in (one index range on (uid, group_id)), paged by id after the cursor {@code after}. */
    public Page<GroupView> groupsOf(long uid, String after, int limit) {
        int n = Page.checkLimit(limit, MAX_LIMIT);
        return Page.of(store.groupsOf(uid, cursor(after), n + 1), n, GroupView::of, GroupView::id);
    }

    /** A group's pending join requests, for its admins: newest first, paged by id before the cursor {@code before}. */
    public Page<RequestView> pendingJoins(long actor, long groupId, String before, int limit) {
        int n = Page.checkLimit(limit, MAX_LIMIT);
        Long b = cursor(before);
        Group g = find(groupId).orElseThrow(() -> unknownGroup(groupId));
        requireRole(g, actor, Role.A);
        return Page.of(store.pendingJoins(groupId, b, n + 1), n, RequestView::of, RequestView::id);
    }

    /**
     * Public active groups: by name prefix {@code q} (keyset on name and id: {@code after} is
     * name:id), by tag (keyset on id), or with neither a random sample (a random point on the
     * indexed {@code sample_key}, wrapping around; no next page).
     */
    public Page<GroupView> search(String q, String tag, String after, int limit) {
        int n = Page.checkLimit(limit, MAX_LIMIT);
        if (q != null && tag != null) {
            throw ProblemException.badRequest("one-criterion", "Give q or tag, not both.");
        }
        if (q != null && (q.isBlank() || q.length() > 100)) {
            throw ProblemException.badRequest("invalid-query", "q is 1 to 100 characters.");
        }
        String afterName = null;
        Long afterId = null;
        if (after != null) {
            int colon = after.lastIndexOf(':');
            afterName = q != null && colon > 0 ? after.substring(0, colon) : null;
            afterId = Ids.parse(q != null && colon > 0 ? after.substring(colon + 1) : after);
        }
        if (q == null && tag == null) {
            return Page.last(store.publicSample(n).stream().map(GroupView::of).toList());
        }
        List<Group> found = q != null ? store.publicByPrefix(q, afterName, afterId, n + 1) : store.publicByTag(tag, afterId, n + 1);
        return Page.of(found, n, GroupView::of, v -> q != null ? v.name().toLowerCase() + ":" + v.id() : v.id());
    }

    /**
     * Every group (hidden and dissolved too) whose name starts with {@code q} (every group for ""),
     * paged by id after the cursor {@code after}: for operators.
     */
    public Page<GroupView> searchAll(String q, String after, int limit) {
        int n = Page.checkLimit(limit, MAX_LIMIT);
        if (q.length() > 100) {
            throw ProblemException.badRequest("invalid-query", "q is at most 100 characters.");
        }
        return Page.of(store.allByPrefix(q, cursor(after), n + 1), n, GroupView::of, GroupView::id);
    }

    /** A page cursor that is an id; null for the first page, 400 {@code invalid-id} if it is not an id. */
    private static Long cursor(String id) {
        return id == null ? null : Ids.parse(id);
    }

    // ---- internals ----

    /** The group locked, whoever asks (operators; an invite link's holder): 404 if there is none, 409 if dissolved. */
    private Group lockActive(long groupId) {
        return lockActive(groupId, null, () -> unknownGroup(groupId));
    }

    /** The group locked for {@code caller}: to a hidden group's outsider it is an unknown id, dissolved or not. */
    private Group lockActive(long groupId, long caller) {
        return lockActive(groupId, caller, () -> unknownGroup(groupId));
    }

    /**
     * The group locked; {@code unknown} if there is none, or if it is hidden and {@code caller} (null:
     * no one's to check) is not a member — checked under the lock, before anything else, so that
     * the answer never tells an outsider a hidden group exists (not even that it is dissolved).
     */
    private Group lockActive(long groupId, Long caller, Supplier<ProblemException> unknown) {
        Group g = store.lock(groupId).filter(x -> caller == null || !hiddenFrom(x, caller)).orElseThrow(unknown);
        if (!g.status().equals("ACTIVE")) {
            throw ProblemException.conflict("group-dissolved", "Group " + groupId + " is dissolved: its history is read-only.");
        }
        return g;
    }

    /** A hidden group {@code uid} has no role in: to them it does not exist. */
    private boolean hiddenFrom(Group g, long uid) {
        return g.visibility().equals("hidden") && roleOf(g.id(), uid).isEmpty();
    }

    /** What an id that names no group answers, to everyone a group is hidden from as well. */
    private static ProblemException unknownGroup(long groupId) {
        return ProblemException.notFound("No group " + groupId);
    }

    /** What an id that names no request answers, and a request the caller may not know of. */
    private static ProblemException unknownRequest(long requestId) {
        return ProblemException.notFound("No request " + requestId);
    }

    /** 403 unless the caller's role is at least {@code needed}; a non-member of a hidden group gets 404. */
    private Role requireRole(Group g, long uid, Role needed) {
        Optional<Role> role = roleOf(g.id(), uid);
        if (role.isEmpty()) {
            if (g.visibility().equals("hidden")) {
                throw unknownGroup(g.id());
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

    private Request pendingOrNew(long groupId, long uid, String kind, Long inviter, String message) {
        return store.pendingOrNew(ids.nextId(), groupId, uid, kind, inviter, message);
    }

    /** One conditional update: of two answers to a request exactly one applies. */
    private Request answer(Request r, long answerer, boolean accept, String note) {
        if (!store.answer(r.id(), accept, answerer, note)) {
            throw ProblemException.conflict("request-not-pending", "The request was answered already.");
        }
        return findRequest(r.id()).orElseThrow();
    }

    public Optional<Request> findRequest(long id) {
        return store.findRequest(id);
    }

    private List<Long> memberIds(long groupId) {
        return store.memberIds(groupId, EnumSet.allOf(Role.class));
    }

    /** A chat group hears who joined or quit; a channel does not. */
    private void announceToChat(Group g, long uid, String what) {
        if (g.type().equals("chat")) {
            tell(memberIds(g.id()), what, g.id(), uid, null);
        }
    }

    private void record(long groupId, long actor, String type, Long target, String detail) {
        long id = ids.nextId();
        changes.fire(new GroupChanged(groupId, store.type(groupId), actor, type, target, detail));
        store.insertEvent(id, groupId, actor, type, target, detail);
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
}
