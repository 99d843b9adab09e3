package io.roost.social;

import io.roost.identity.AccountService;
import io.roost.platform.api.Page;
import io.roost.platform.ids.IdGenerator;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.delivery.Notice;
import io.roost.platform.json.Jsonp;
import io.roost.social.store.FriendRequestStore;
import io.roost.social.store.GraphStore;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntFunction;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The social graph: the module's public face. Edges are follows; friends are
 * mutual follows in both modes (approval mode writes both edges when a request is accepted). Every
 * change is one transaction around a conditional statement, and counters move only when a row
 * really changed, so concurrent toggles leave no duplicate edges and counts equal to rows.
 */
@ApplicationScoped
public class SocialGraph {

    /** The most items a page of ids or requests holds (REST and frames). */
    public static final int MAX_LIMIT = 500;

    /** How {@code a} stands to {@code b}. */
    public record Relation(boolean following, boolean followedBy, boolean friends, boolean blocking, boolean blockedBy) {

        /** One of the two blocks the other: nothing passes between them either way. */
        public boolean blockedEitherWay() {
            return blocking || blockedBy;
        }
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

    @Inject
    GraphStore graphStore;

    @Inject
    FriendRequestStore requestStore;

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
        return graphStore.follow(a, b);
    }

    @Transactional
    public boolean unfollow(long a, long b) {
        return graphStore.unfollow(a, b);
    }

    /** Removes the friendship both ways, telling nobody. */
    @Transactional
    public boolean removeFriend(long a, long b) {
        boolean one = graphStore.unfollow(a, b);
        boolean two = graphStore.unfollow(b, a);
        return one || two;
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
        requestStore.expireStale(from, to);
        requestStore.expireStale(to, from);
        // They asked first: asking back is answering yes.
        Optional<FriendRequest> theirs = requestStore.pending(to, from);
        if (theirs.isPresent()) {
            return new RequestOutcome(answer(from, theirs.get().id(), "accept", null), true, false);
        }
        long id = ids.nextId();
        boolean created = requestStore.insert(id, from, to, message,
                OffsetDateTime.now(ZoneOffset.UTC).plus(settings.requestTtl()));
        FriendRequest request = requestStore.pending(from, to)
                .orElseThrow(() -> new IllegalStateException("pending request vanished"));
        if (created) {
            notify(to, "request", request); // kept in the table for when they are offline
        }
        return new RequestOutcome(request, false, created);
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
        Optional<Long> from = requestStore.answer(requestId, answerer, status, note);
        if (from.isEmpty()) {
            FriendRequest r = find(requestId).filter(x -> x.toId() == answerer || x.fromId() == answerer)
                    .orElseThrow(() -> ProblemException.notFound("No friend request " + requestId));
            if (r.toId() != answerer) {
                throw ProblemException.forbidden("Only the addressee answers a friend request.");
            }
            throw ProblemException.conflict("request-not-pending", "The request is " + effectiveStatus(r).toLowerCase() + ".");
        }
        long requester = from.get();
        if (status.equals("ACCEPTED")) {
            graphStore.follow(requester, answerer);
            graphStore.follow(answerer, requester);
        }
        FriendRequest answered = find(requestId).orElseThrow();
        if (!status.equals("IGNORED")) { // ignoring is silent
            notify(requester, "answer", answered);
        }
        return answered;
    }

    @Transactional
    public void cancelRequest(long from, long requestId) {
        if (!requestStore.cancel(requestId, from)) {
            FriendRequest r = find(requestId).filter(x -> x.fromId() == from)
                    .orElseThrow(() -> ProblemException.notFound("No friend request " + requestId + " of yours"));
            throw ProblemException.conflict("request-not-pending", "The request is " + effectiveStatus(r).toLowerCase() + ".");
        }
    }

    /** Requests to (incoming) or from (outgoing) uid, newest first, keyset-paged by id. */
    public List<FriendRequest> requests(long uid, boolean incoming, String status, Long before, int limit) {
        return requestStore.list(uid, incoming, status, before, limit);
    }

    /**
     * A user's friend requests as REST and {@code friendOp} frames list them: direction incoming or
     * outgoing, one status, newest first, keyset-paged by id.
     */
    public Page<FriendRequestView> requestPage(long uid, String direction, String status, Long before, int limit) {
        if (!direction.equals("incoming") && !direction.equals("outgoing")) {
            throw ProblemException.badRequest("invalid-direction", "direction is incoming or outgoing.");
        }
        if (!status.matches("PENDING|ACCEPTED|REJECTED|IGNORED|EXPIRED|CANCELLED")) {
            throw ProblemException.badRequest("invalid-status", "status is PENDING, ACCEPTED, REJECTED, IGNORED, EXPIRED or CANCELLED.");
        }
        int n = Page.checkLimit(limit, MAX_LIMIT);
        return Page.of(requests(uid, direction.equals("incoming"), status, before, n + 1), n, FriendRequestView::of,
                FriendRequestView::id);
    }

    public Optional<FriendRequest> find(long id) {
        return requestStore.find(id);
    }

    @Transactional
    public int expireRequests() {
        return requestStore.expireAll();
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

    // ---- blocks and permissions ----

    @Transactional
    public boolean block(long blocker, long blocked) {
        checkPeer(blocker, blocked);
        return graphStore.block(blocker, blocked);
    }

    @Transactional
    public boolean unblock(long blocker, long blocked) {
        return graphStore.unblock(blocker, blocked);
    }

    public List<Long> blocked(long blocker, Long after, int limit) {
        return graphStore.blocked(blocker, after, limit);
    }

    /** One primary-key probe: chat calls this on every message. */
    public boolean blocks(long blocker, long blocked) {
        return graphStore.blocks(blocker, blocked);
    }

    public record Permission(boolean hidePresence, boolean muted) {
    }

    @Transactional
    public Permission setPermission(long owner, long peer, Permission p) {
        checkPeer(owner, peer);
        graphStore.setPermission(owner, peer, p);
        return p;
    }

    public Permission permission(long owner, long peer) {
        return graphStore.permission(owner, peer);
    }

    /** Those among {@code peers} from whom {@code owner} hides presence (one query per page). */
    public List<Long> hiddenFrom(long owner, List<Long> peers) {
        return graphStore.hiddenFrom(owner, peers);
    }

    /** Those among {@code owners} who hide their presence from {@code peer}. */
    public List<Long> hidingFrom(long peer, List<Long> owners) {
        return graphStore.hidingFrom(peer, owners);
    }

    /** Those among {@code candidates} who follow {@code followee}: one index range probe for a whole batch. */
    public Set<Long> followersAmong(long followee, Collection<Long> candidates) {
        return graphStore.followersAmong(followee, candidates);
    }

    // ---- queries ----

    /** Is {@code a} a follower of {@code b}: one primary-key probe (live rooms count online fans with it). */
    public boolean isFollower(long a, long b) {
        return graphStore.isFollower(a, b);
    }

    public Relation relation(long a, long b) {
        return graphStore.relation(a, b);
    }

    /**
     * Of these pairs of users, those where either side blocks the other, as {@code List.of(low, high)}
     * (one query for a batch of messages).
     */
    public Set<List<Long>> blockedEitherWay(Collection<List<Long>> pairs) {
        if (pairs.isEmpty()) {
            return Set.of();
        }
        Long[] a = pairs.stream().map(p -> p.get(0)).toArray(Long[]::new);
        Long[] b = pairs.stream().map(p -> p.get(1)).toArray(Long[]::new);
        Set<List<Long>> blocked = new java.util.HashSet<>();
        for (long[] k : graphStore.blockedAmong(a, b)) {
            blocked.add(List.of(Math.min(k[0], k[1]), Math.max(k[0], k[1])));
        }
        return blocked;
    }

    /**
     * SQL that is true where the users {@code a} and {@code b} (SQL expressions of the caller's
     * statement) block each other, either way: for a statement on a hot path that checks it
     * without a query of its own.
     */
    public String blockedEitherWaySql(String a, String b) {
        return GraphStore.blockedEitherWaySql(a, b);
    }

    /**
     * SQL that is true where user {@code follower} follows user {@code followee} (SQL expressions
     * of the caller's statement), for another module's statement that checks it in passing.
     */
    public String followsSql(String follower, String followee) {
        return GraphStore.followsSql(follower, followee);
    }

    public SendDecision canSend(long from, long to) {
        Relation r = relation(from, to);
        return r.blockedBy() ? SendDecision.BLOCKED : r.friends() ? SendDecision.FRIEND : SendDecision.STRANGER;
    }

    public Counts counts(long uid) {
        return graphStore.counts(uid);
    }

    /** Those of {@code uids} with at least one follower: the only ones with an audience for their presence (friends follow too). */
    public Set<Long> withFollowers(Collection<Long> uids) {
        return graphStore.withFollowers(uids);
    }

    public List<Long> followers(long uid, Long after, int limit) {
        return graphStore.followers(uid, after, limit);
    }

    public List<Long> following(long uid, Long after, int limit) {
        return graphStore.following(uid, after, limit);
    }

    /** Friends (mutual follows) of uid; with {@code with}, only those who are also friends of that user. */
    public List<Long> friends(long uid, Long with, Long after, int limit) {
        return graphStore.friends(uid, with, after, limit);
    }

    /**
     * A page of user ids (as strings) as REST and frames list them: {@code fetch} reads one row more
     * than asked (after the limit is checked), which only says whether there is a next page.
     */
    public static Page<String> page(IntFunction<List<Long>> fetch, int limit) {
        int n = Page.checkLimit(limit, MAX_LIMIT);
        return Page.of(fetch.apply(n + 1), n, String::valueOf, id -> id);
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
}
