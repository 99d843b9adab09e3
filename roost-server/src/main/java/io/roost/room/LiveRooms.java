package io.roost.room;

import io.roost.identity.AccountService;
import io.roost.platform.ids.IdGenerator;
import io.roost.platform.json.Jsonp;
import io.roost.platform.outbox.OutboxPublisher;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.store.StatementFailed;
import io.roost.room.store.RoomStore;
import io.roost.social.SocialGraph;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Live rooms: who is watching an anchor's open session now, how many of them follow
 * the anchor, and who came to which session. The room module's public face.
 *
 * <p>Viewer changes are one transaction each over a sorted batch (REST single calls are batches of
 * one). They take their locks in one order ({@link RoomStore}), so overlapping batches queue; a
 * deadlock, should one still occur, is retried.
 * Heartbeats are buffered and flushed once a second ({@link RoomHeartbeats}).
 */
@ApplicationScoped
public class LiveRooms {

    public static final String EVENTS_TOPIC = "roost-room-events";
    public static final int MAX_BATCH = 1000;
    private static final Pattern ROOM_ID = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");
    private static final long SESSION_CACHE_NANOS = 1_000_000_000L;

    /** How an open call ended: a new session, or the one this anchor already had open. */
    public record Opened(RoomSession session, boolean created) {
    }

    /** The open session of a room as this node last saw it (a closed one is noticed by the statements). */
    private record Current(long sessionId, long anchorId, long expiresAt) {
    }

    private record CachedStats(RoomStats stats, long expiresAt) {
    }

    @EJB
    RoomStore store;

    @EJB
    RoomHeartbeats heartbeats;

    @Inject
    SocialGraph social;

    @Inject
    AccountService accounts;

    @Inject
    OutboxPublisher outbox;

    @Inject
    IdGenerator ids;

    private final ConcurrentHashMap<String, Current> current = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, CachedStats> recentStats = new ConcurrentHashMap<>();

    /** 400 {@code invalid-room-id} unless 1–64 of letters, digits and {@code _ . : -}. */
    public static String roomId(String raw) {
        if (raw == null || !ROOM_ID.matcher(raw).matches()) {
            throw ProblemException.badRequest("invalid-room-id", "A room id is 1 to 64 letters, digits, '_', '.', ':' or '-'.");
        }
        return raw;
    }

    public static ProblemException noOpenSession(String roomId) {
        return new ProblemException(404, "no-open-session", "Not found", "Room " + roomId + " has no open live session.");
    }

    // ---- the anchor's side ----

    /** Opens a live session; the same anchor opening again gets its open session back. */
    @Transactional
    public Opened open(String roomId, long anchorId, String title) {
        if (!accounts.isActive(anchorId)) {
            throw ProblemException.badRequest("unknown-anchor", "Account " + anchorId + " does not exist or is not active.");
        }
        long id = ids.nextId();
        if (store.insertSession(id, roomId, anchorId, title)) {
            RoomSession s = store.sessionById(id).orElseThrow();
            publish("opened", s, s.online(), s.onlineFans());
            current.remove(roomId);
            return new Opened(s, true);
        }
        RoomSession open = store.openSession(roomId).orElseThrow(() -> ProblemException.conflict("room-busy",
                "Room " + roomId + " is being opened or closed right now; try again."));
        if (open.anchorId() != anchorId) {
            throw ProblemException.conflict("room-busy", "Room " + roomId + " is live with another anchor.");
        }
        return new Opened(open, false);
    }

    /**
     * Closes the room's open session: final counts are kept and the counters deleted
     * in this short transaction; the viewer records go offline in batches right after
     * (one huge room must not stall the others). {@code anchorId}, when given, must be the session's anchor.
     */
    @Transactional
    public RoomSession close(String roomId, Long anchorId) {
        RoomSession open = store.openSession(roomId).orElseThrow(() -> noOpenSession(roomId));
        if (anchorId != null && open.anchorId() != anchorId) {
            throw ProblemException.forbidden("Only the anchor of the live session may close it.");
        }
        return closeSession(open.id(), "closed").orElseThrow(() -> noOpenSession(roomId));
    }

    /** Closes a session by id (anchor timeout); empty if it was closed already. */
    @Transactional
    public Optional<RoomSession> closeSession(long sessionId, String reason) {
        Optional<RoomSession> closed = store.closeSession(sessionId, reason);
        closed.ifPresent(s -> {
            publish("closed", s, s.online(), s.onlineFans());
            current.remove(s.roomId());
            recentStats.remove(s.roomId());
        });
        return closed;
    }

    /** The anchor's heartbeat keeps the session open; it answers with the live counts. */
    public RoomStats anchorHeartbeat(String roomId, Long anchorId) {
        RoomSession open = store.openSession(roomId).orElseThrow(() -> noOpenSession(roomId));
        if (anchorId != null && open.anchorId() != anchorId) {
            throw ProblemException.forbidden("Only the anchor of the live session sends its heartbeat.");
        }
        if (!store.anchorHeartbeat(open.id())) {
            throw noOpenSession(roomId);
        }
        return new RoomStats(open.id(), open.anchorId(), open.online(), open.onlineFans());
    }

    // ---- the viewers' side ----

    /**
     * Viewers enter: each is a fan if it follows the anchor now. Entering twice keeps
     * the first stay. 404 {@code no-open-session}; 400 {@code anchor-not-viewer}.
     */
    public List<Viewer> enter(String roomId, Collection<Long> uids) {
        Long[] sorted = sortedDistinct(uids);
        for (int attempt = 0; ; attempt++) {
            Current s = current(roomId);
            if (Set.of(sorted).contains(s.anchorId())) {
                throw ProblemException.badRequest("anchor-not-viewer", "The anchor of a live session does not enter it as a viewer.");
            }
            Set<Long> fans = social.followersAmong(s.anchorId(), List.of(sorted));
            Boolean[] fan = new Boolean[sorted.length];
            for (int i = 0; i < sorted.length; i++) {
                fan[i] = fans.contains(sorted[i]);
            }
            List<Viewer> rows = retryingDeadlocks(() -> store.enter(s.sessionId(), sorted, fan));
            if (!rows.isEmpty() || attempt == 1) {
                if (rows.isEmpty()) {
                    throw noOpenSession(roomId);
                }
                return rows;
            }
            current.remove(roomId); // the session this node knew has closed; look again once
        }
    }

    /**
     * Heartbeats: buffered, flushed within a second with the fan flags re-checked
     * (a follow or unfollow mid-stay counts). Answers with the room's counts as of at most a second ago.
     */
    public RoomStats heartbeat(String roomId, Collection<Long> uids) {
        Current s = current(roomId);
        heartbeats.mark(s.sessionId(), s.anchorId(), uids);
        long now = System.nanoTime();
        CachedStats cached = recentStats.get(roomId);
        if (cached == null || cached.expiresAt() - now < 0 || cached.stats().sessionId() != s.sessionId()) {
            cached = new CachedStats(stats(roomId), now + SESSION_CACHE_NANOS);
            recentStats.put(roomId, cached);
        }
        return cached.stats();
    }

    /** Viewers leave; leaving a room that is not live, or twice, changes nothing. Returns how many left. */
    public int leave(String roomId, Collection<Long> uids) {
        Long[] sorted = sortedDistinct(uids);
        Optional<Current> s = currentIfOpen(roomId);
        return s.isEmpty() ? 0 : retryingDeadlocks(() -> store.leave(s.get().sessionId(), sorted, false));
    }

    /**
     * A device's connection closed while it watched: it leaves within a second, in order with the
     * heartbeats this node heard ({@link RoomHeartbeats}); a heartbeat from another device of the user brings it back.
     */
    public void dropped(String roomId, long uid) {
        currentIfOpen(roomId).ifPresent(s -> heartbeats.markDropped(s.sessionId(), s.anchorId(), uid));
    }

    // ---- queries ----

    /** The open session's counts, exact as of the last commit. */
    public RoomStats stats(String roomId) {
        return store.stats(roomId).orElseThrow(() -> noOpenSession(roomId));
    }

    public RoomSession openSession(String roomId) {
        return store.openSession(roomId).orElseThrow(() -> noOpenSession(roomId));
    }

    public RoomSession session(String roomId, long sessionId) {
        return store.sessionById(sessionId).filter(s -> s.roomId().equals(roomId))
                .orElseThrow(() -> ProblemException.notFound("Room " + roomId + " has no session " + sessionId + "."));
    }

    public List<RoomSession> sessions(String roomId, Long before, int limit) {
        return store.sessions(roomId, before, limit);
    }

    /** A viewer's record in the open session; empty if it never entered it. */
    public Optional<Viewer> viewer(String roomId, long uid) {
        return store.viewer(openSession(roomId).id(), uid);
    }

    public Optional<Viewer> attendance(long sessionId, long uid) {
        return store.viewer(sessionId, uid);
    }

    public List<Viewer> viewers(String roomId, boolean fansOnly, Long after, int limit) {
        return store.viewers(openSession(roomId).id(), fansOnly, after, limit);
    }

    public long fansEntered(String roomId, OffsetDateTime from, OffsetDateTime to) {
        return store.fansEntered(openSession(roomId).id(), from, to);
    }

    /** The last {@code n} sessions of a room, newest first. */
    public List<Long> recentSessions(String roomId, int n) {
        return store.recentSessionIds(roomId, n);
    }

    /** Fans present in every one ({@code all}) or any one of {@code sessionIds}. */
    public List<LoyalFan> loyalFans(List<Long> sessionIds, boolean all, Long after, int limit) {
        if (sessionIds.isEmpty()) {
            return List.of();
        }
        return store.loyalFans(sessionIds.toArray(Long[]::new), all ? sessionIds.size() : 1, after, limit);
    }

    public List<OpenRoom> openRooms(int limit) {
        return store.openRooms(limit);
    }

    public RoomTotals totals() {
        return store.totals();
    }

    // ---- housekeeping hooks ----

    /** Publishes the counts of every open session that is due (one node per session per interval). */
    @Transactional
    public int publishDueCounts(java.time.Duration interval) {
        List<RoomStore.CountsDue> due = store.claimDueCounts(interval);
        for (RoomStore.CountsDue d : due) {
            outbox.publish(EVENTS_TOPIC, "counts", d.roomId(), event("counts", d.roomId(), d.sessionId(), d.anchorId(),
                    d.online(), d.onlineFans()));
        }
        return due.size();
    }

    /** Drops this node's cached view of rooms not asked about for a while (a node sees many rooms come and go). */
    public void forgetStale() {
        long now = System.nanoTime();
        current.values().removeIf(c -> c.expiresAt() - now < 0);
        recentStats.values().removeIf(c -> c.expiresAt() - now < 0);
    }

    // ---- helpers ----

    private Current current(String roomId) {
        return currentIfOpen(roomId).orElseThrow(() -> noOpenSession(roomId));
    }

    private Optional<Current> currentIfOpen(String roomId) {
        long now = System.nanoTime();
        Current c = current.get(roomId);
        if (c != null && c.expiresAt() - now > 0) {
            return Optional.of(c);
        }
        Optional<Current> fresh = store.openSession(roomId).map(s -> new Current(s.id(), s.anchorId(), now + SESSION_CACHE_NANOS));
        fresh.ifPresentOrElse(f -> current.put(roomId, f), () -> current.remove(roomId));
        return fresh;
    }

    private static Long[] sortedDistinct(Collection<Long> uids) {
        if (uids.isEmpty() || uids.size() > MAX_BATCH) {
            throw ProblemException.badRequest("invalid-batch", "Give 1 to " + MAX_BATCH + " uids.");
        }
        return uids.stream().distinct().sorted().toArray(Long[]::new);
    }

    private static <T> T retryingDeadlocks(Supplier<T> statement) {
        for (int attempt = 1; ; attempt++) {
            try {
                return statement.get();
            } catch (StatementFailed e) {
                if (!e.deadlock() || attempt == 3) {
                    throw e;
                }
            }
        }
    }

    private void publish(String type, RoomSession s, int online, int onlineFans) {
        outbox.publish(EVENTS_TOPIC, type, s.roomId(), event(type, s.roomId(), s.id(), s.anchorId(), online, onlineFans));
    }

    private static String event(String type, String roomId, long sessionId, long anchorId, int online, int onlineFans) {
        return Jsonp.PROVIDER.createObjectBuilder()
                .add("type", type).add("roomId", roomId).add("sessionId", Long.toString(sessionId))
                .add("anchorId", Long.toString(anchorId)).add("online", online).add("onlineFans", onlineFans)
                .add("at", OffsetDateTime.now().toString()).build().toString();
    }
}
