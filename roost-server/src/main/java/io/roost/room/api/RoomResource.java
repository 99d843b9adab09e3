package io.roost.room.api;

import io.roost.platform.api.Page;
import io.roost.platform.ids.Ids;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.security.Caller;
import io.roost.platform.security.Roles;
import io.roost.room.LiveRooms;
import io.roost.room.LoyalFan;
import io.roost.room.RoomSession;
import io.roost.room.RoomStats;
import io.roost.room.Viewer;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * Live rooms over REST. Back ends (service, admin) act for anyone; a user acts as
 * itself: opens, heartbeats and closes its own sessions, enters and leaves as itself, and reads a
 * session's viewer and fan lists only as its anchor. Everyone signed in may read a room's counts.
 */
@Path("/v1/rooms/{roomId}")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.ADMIN, Roles.SERVICE, Roles.USER})
@Tag(name = "rooms")
public class RoomResource {

    static final int MAX_LIMIT = 1000;
    static final int MAX_SESSIONS = 100;

    public record OpenBody(@Size(max = 20) String anchorId, @Size(max = 200) String title) {
    }

    /** Each uid is checked where it is parsed (400 invalid-id): per-element constraints cost a tenth of the heartbeat path. */
    public record UidsBody(@NotNull @Size(min = 1, max = LiveRooms.MAX_BATCH) List<String> uids) {
    }

    @Schema(name = "RoomSession") // in the OpenAPI document: another API type has the same simple name
    public record SessionView(String id, String roomId, String anchorId, String title, boolean open, OffsetDateTime openedAt,
                              OffsetDateTime anchorHeartbeatAt, OffsetDateTime closedAt, String closeReason, int online,
                              int onlineFans, int peakOnline, boolean cleared) {
        static SessionView of(RoomSession s) {
            return new SessionView(Long.toString(s.id()), s.roomId(), Long.toString(s.anchorId()), s.title(), s.open(), s.openedAt(),
                    s.anchorHeartbeatAt(), s.closedAt(), s.closeReason(), s.online(), s.onlineFans(), s.peakOnline(), s.cleared());
        }
    }

    public record StatsView(String roomId, String sessionId, int online, int onlineFans) {
        static StatsView of(String roomId, RoomStats s) {
            return new StatsView(roomId, Long.toString(s.sessionId()), s.online(), s.onlineFans());
        }
    }

    public record ViewerView(String uid, String sessionId, boolean online, boolean fan, OffsetDateTime enteredAt,
                             OffsetDateTime lastHeartbeatAt, OffsetDateTime firstEnteredAt, OffsetDateTime lastLeftAt,
                             String leftBy, long onlineMs, int entries) {
        static ViewerView of(Viewer v) {
            return new ViewerView(Long.toString(v.uid()), Long.toString(v.sessionId()), v.online(), v.fan(), v.enteredAt(),
                    v.lastHeartbeatAt(), v.firstEnteredAt(), v.lastLeftAt(), v.leftBy(), v.onlineMs(), v.entries());
        }

        static ViewerView absent(long uid, long sessionId) {
            return new ViewerView(Long.toString(uid), Long.toString(sessionId), false, false, null, null, null, null, null, 0, 0);
        }
    }

    public record Entered(List<ViewerView> viewers) {
    }

    @Schema(name = "ViewerCount") // in the OpenAPI document: another API type has the same simple name
    public record Count(int count) {
    }

    public record FansEntered(String roomId, String sessionId, OffsetDateTime from, OffsetDateTime to, long count) {
    }

    public record LoyalFanView(String uid, int sessions, long onlineMs) {
    }

    public record LoyalFans(String mode, List<String> sessionIds, List<LoyalFanView> items, String next) {
    }

    @Inject
    LiveRooms rooms;

    // ---- sessions ----

    @POST
    @Path("/sessions")
    @Operation(operationId = "openRoomSession",
            summary = "Open a live session (201; 200 with the open one if this anchor already has it; 409 room-busy)")
    @APIResponse(responseCode = "201", description = "Opened",
            content = @Content(schema = @Schema(implementation = SessionView.class)))
    @APIResponse(responseCode = "200", description = "This anchor's session was open already",
            content = @Content(schema = @Schema(implementation = SessionView.class)))
    @APIResponse(responseCode = "400", description = "invalid-room-id, anchor-required, invalid-id, unknown-anchor")
    @APIResponse(responseCode = "403", description = "forbidden: users open sessions only as their own anchor")
    @APIResponse(responseCode = "409", description = "room-busy")
    public Response open(@PathParam("roomId") String roomId, @Valid OpenBody body, @Context SecurityContext sc) {
        String anchor = body == null ? null : body.anchorId();
        long anchorId;
        if (Caller.actsForOthers(sc)) {
            if (anchor == null) {
                throw ProblemException.badRequest("anchor-required", "anchorId is required when a back end opens a session.");
            }
            anchorId = Ids.parse(anchor);
        } else {
            anchorId = Caller.requireSelfOrOperator(anchor == null ? Caller.id(sc) : Caller.user(anchor, sc), sc,
                    "Users open sessions only as their own anchor.");
        }
        LiveRooms.Opened o = rooms.open(LiveRooms.roomId(roomId), anchorId, body == null ? null : body.title());
        return Response.status(o.created() ? 201 : 200).entity(SessionView.of(o.session())).build();
    }

    @GET
    @Path("/sessions/current")
    @Operation(operationId = "getCurrentRoomSession", summary = "The open session with its live counts (404 no-open-session)")
    @APIResponse(responseCode = "200", description = "The open session")
    @APIResponse(responseCode = "400", description = "invalid-room-id")
    @APIResponse(responseCode = "404", description = "no-open-session")
    public SessionView current(@PathParam("roomId") String roomId) {
        return SessionView.of(rooms.openSession(LiveRooms.roomId(roomId)));
    }

    @DELETE
    @Path("/sessions/current")
    @Operation(operationId = "closeRoomSession", summary = "Close the open session; its viewers go offline in the background")
    @APIResponse(responseCode = "200", description = "The closed session")
    @APIResponse(responseCode = "400", description = "invalid-room-id")
    @APIResponse(responseCode = "403", description = "forbidden: only the session's anchor (or a back end)")
    @APIResponse(responseCode = "404", description = "no-open-session")
    public SessionView close(@PathParam("roomId") String roomId, @Context SecurityContext sc) {
        return SessionView.of(rooms.close(LiveRooms.roomId(roomId), Caller.actsForOthers(sc) ? null : Caller.id(sc)));
    }

    @PUT
    @Path("/sessions/current/heartbeat")
    @Operation(operationId = "anchorHeartbeat", summary = "The anchor's heartbeat; answers with the live counts")
    @APIResponse(responseCode = "200", description = "The live counts")
    @APIResponse(responseCode = "400", description = "invalid-room-id")
    @APIResponse(responseCode = "403", description = "forbidden: only the session's anchor (or a back end)")
    @APIResponse(responseCode = "404", description = "no-open-session")
    public StatsView anchorHeartbeat(@PathParam("roomId") String roomId, @Context SecurityContext sc) {
        String room = LiveRooms.roomId(roomId);
        return StatsView.of(room, rooms.anchorHeartbeat(room, Caller.actsForOthers(sc) ? null : Caller.id(sc)));
    }

    @GET
    @Path("/sessions")
    @Operation(operationId = "listRoomSessions", summary = "The room's sessions, newest first (keyset: next)")
    @APIResponse(responseCode = "200", description = "A page of sessions")
    @APIResponse(responseCode = "400", description = "invalid-room-id, invalid-id, invalid-limit")
    public Page<SessionView> sessions(@PathParam("roomId") String roomId, @QueryParam("before") String before,
                                      @QueryParam("limit") @DefaultValue("20") int limit) {
        int n = Page.checkLimit(limit, MAX_SESSIONS);
        return Page.of(rooms.sessions(LiveRooms.roomId(roomId), before == null ? null : Ids.parse(before), n + 1), n,
                SessionView::of, SessionView::id);
    }

    @GET
    @Path("/sessions/{sessionId}")
    @Operation(operationId = "getRoomSession",
            summary = "One session, open or closed (final counts, peak, whether its viewers are cleared)")
    @APIResponse(responseCode = "200", description = "The session")
    @APIResponse(responseCode = "400", description = "invalid-room-id, invalid-id")
    @APIResponse(responseCode = "404", description = "not-found: no such session in this room")
    public SessionView session(@PathParam("roomId") String roomId, @PathParam("sessionId") String sessionId) {
        return SessionView.of(rooms.session(LiveRooms.roomId(roomId), Ids.parse(sessionId)));
    }

    @GET
    @Path("/sessions/{sessionId}/viewers/{uid}")
    @Operation(operationId = "getSessionAttendance",
            summary = "A viewer's entry history in one session: first enter, last leave, total time")
    @APIResponse(responseCode = "200", description = "The viewer's record (online false, entries 0 if never entered)")
    @APIResponse(responseCode = "400", description = "invalid-room-id, invalid-id")
    @APIResponse(responseCode = "403", description = "forbidden: another user's record: only the anchor (or a back end)")
    @APIResponse(responseCode = "404", description = "not-found: no such session in this room")
    public ViewerView attendance(@PathParam("roomId") String roomId, @PathParam("sessionId") String sessionId,
                                 @PathParam("uid") String uid, @Context SecurityContext sc) {
        RoomSession s = rooms.session(LiveRooms.roomId(roomId), Ids.parse(sessionId));
        long u = Caller.user(uid, sc);
        if (u != Caller.id(sc)) {
            requireAnchorOrOperator(s, sc);
        }
        return rooms.attendance(s.id(), u).map(ViewerView::of).orElseGet(() -> ViewerView.absent(u, s.id()));
    }

    // ---- viewers ----

    @POST
    @Path("/viewers/{uid}")
    @Operation(operationId = "enterRoom", summary = "A viewer enters; fan = follows the anchor now (404 no-open-session)")
    @APIResponse(responseCode = "200", description = "The viewer")
    @APIResponse(responseCode = "400", description = "invalid-room-id, invalid-id, anchor-not-viewer")
    @APIResponse(responseCode = "403", description = "forbidden: users enter, heartbeat and leave only as themselves")
    @APIResponse(responseCode = "404", description = "no-open-session")
    public ViewerView enter(@PathParam("roomId") String roomId, @PathParam("uid") String uid, @Context SecurityContext sc) {
        return ViewerView.of(rooms.enter(LiveRooms.roomId(roomId), List.of(self(uid, sc))).get(0));
    }

    @PUT
    @Path("/viewers/{uid}/heartbeat")
    @Operation(operationId = "viewerHeartbeat",
            summary = "A viewer's heartbeat (buffered, fan re-checked); answers with the room's counts")
    @APIResponse(responseCode = "200", description = "The room's counts")
    @APIResponse(responseCode = "400", description = "invalid-room-id, invalid-id")
    @APIResponse(responseCode = "403", description = "forbidden: users enter, heartbeat and leave only as themselves")
    @APIResponse(responseCode = "404", description = "no-open-session")
    public StatsView heartbeat(@PathParam("roomId") String roomId, @PathParam("uid") String uid, @Context SecurityContext sc) {
        String room = LiveRooms.roomId(roomId);
        return StatsView.of(room, rooms.heartbeat(room, List.of(self(uid, sc))));
    }

    @DELETE
    @Path("/viewers/{uid}")
    @Operation(operationId = "leaveRoom", summary = "A viewer leaves (204, also if it was not in the room)")
    @APIResponse(responseCode = "204", description = "Left (or was not in the room)")
    @APIResponse(responseCode = "400", description = "invalid-room-id, invalid-id")
    @APIResponse(responseCode = "403", description = "forbidden: users enter, heartbeat and leave only as themselves")
    public Response leave(@PathParam("roomId") String roomId, @PathParam("uid") String uid, @Context SecurityContext sc) {
        rooms.leave(LiveRooms.roomId(roomId), List.of(self(uid, sc)));
        return Response.noContent().build();
    }

    @POST
    @Path("/viewers:enter")
    @RolesAllowed({Roles.ADMIN, Roles.SERVICE})
    @Operation(operationId = "enterRoomBatch",
            summary = "Up to 1,000 viewers enter in one statement (back ends that relay their users' events)")
    @APIResponse(responseCode = "200", description = "The viewers")
    @APIResponse(responseCode = "400", description = "invalid-room-id, invalid-id, invalid-batch, anchor-not-viewer")
    @APIResponse(responseCode = "403", description = "forbidden: back ends (admin, service) only")
    @APIResponse(responseCode = "404", description = "no-open-session")
    public Entered enterMany(@PathParam("roomId") String roomId, @NotNull @Valid UidsBody body) {
        return new Entered(rooms.enter(LiveRooms.roomId(roomId), uids(body)).stream().map(ViewerView::of).toList());
    }

    @POST
    @Path("/viewers:heartbeat")
    @RolesAllowed({Roles.ADMIN, Roles.SERVICE})
    @Operation(operationId = "heartbeatRoomBatch", summary = "Heartbeats of up to 1,000 viewers")
    @APIResponse(responseCode = "200", description = "The room's counts")
    @APIResponse(responseCode = "400", description = "invalid-room-id, invalid-id, invalid-batch")
    @APIResponse(responseCode = "403", description = "forbidden: back ends (admin, service) only")
    @APIResponse(responseCode = "404", description = "no-open-session")
    public StatsView heartbeatMany(@PathParam("roomId") String roomId, @NotNull @Valid UidsBody body) {
        String room = LiveRooms.roomId(roomId);
        return StatsView.of(room, rooms.heartbeat(room, uids(body)));
    }

    @POST
    @Path("/viewers:leave")
    @RolesAllowed({Roles.ADMIN, Roles.SERVICE})
    @Operation(operationId = "leaveRoomBatch", summary = "Up to 1,000 viewers leave; count = how many were online")
    @APIResponse(responseCode = "200", description = "How many were online")
    @APIResponse(responseCode = "400", description = "invalid-room-id, invalid-id, invalid-batch")
    @APIResponse(responseCode = "403", description = "forbidden: back ends (admin, service) only")
    public Count leaveMany(@PathParam("roomId") String roomId, @NotNull @Valid UidsBody body) {
        return new Count(rooms.leave(LiveRooms.roomId(roomId), uids(body)));
    }

    @GET
    @Path("/viewers/{uid}")
    @Operation(operationId = "getRoomViewer", summary = "Is this user watching the open session now")
    @APIResponse(responseCode = "200", description = "The viewer (online false if not watching)")
    @APIResponse(responseCode = "400", description = "invalid-room-id, invalid-id")
    @APIResponse(responseCode = "403", description = "forbidden: another user: only the anchor (or a back end)")
    @APIResponse(responseCode = "404", description = "no-open-session")
    public ViewerView viewer(@PathParam("roomId") String roomId, @PathParam("uid") String uid, @Context SecurityContext sc) {
        String room = LiveRooms.roomId(roomId);
        long u = Caller.user(uid, sc);
        RoomSession s = rooms.openSession(room);
        if (u != Caller.id(sc)) {
            requireAnchorOrOperator(s, sc);
        }
        return rooms.attendance(s.id(), u).map(ViewerView::of).orElseGet(() -> ViewerView.absent(u, s.id()));
    }

    @GET
    @Path("/viewers")
    @Operation(operationId = "listRoomViewers",
            summary = "Online viewers of the open session by uid, or only the fans (fans=true); keyset paged")
    @APIResponse(responseCode = "200", description = "A page of viewers")
    @APIResponse(responseCode = "400", description = "invalid-room-id, invalid-id, invalid-limit")
    @APIResponse(responseCode = "403", description = "forbidden: only the session's anchor (or a back end)")
    @APIResponse(responseCode = "404", description = "no-open-session")
    public Page<ViewerView> viewers(@PathParam("roomId") String roomId, @QueryParam("fans") @DefaultValue("false") boolean fans,
                                    @QueryParam("after") String after, @QueryParam("limit") @DefaultValue("100") int limit,
                                    @Context SecurityContext sc) {
        String room = LiveRooms.roomId(roomId);
        int n = Page.checkLimit(limit, MAX_LIMIT);
        requireAnchorOrOperator(rooms.openSession(room), sc);
        return Page.of(rooms.viewers(room, fans, after == null ? null : Ids.parse(after), n + 1), n, ViewerView::of,
                ViewerView::uid);
    }

    // ---- counts and fans ----

    @GET
    @Path("/stats")
    @Operation(operationId = "getRoomStats",
            summary = "Online viewers and online fans of the open session (exact, 8 counter rows summed)")
    @APIResponse(responseCode = "200", description = "The counts")
    @APIResponse(responseCode = "400", description = "invalid-room-id")
    @APIResponse(responseCode = "404", description = "no-open-session")
    public StatsView stats(@PathParam("roomId") String roomId) {
        String room = LiveRooms.roomId(roomId);
        return StatsView.of(room, rooms.stats(room));
    }

    @GET
    @Path("/fans/entered")
    @Operation(operationId = "countFansEntered", summary = "How many online fans entered in [from, to) (ISO-8601 times)")
    @APIResponse(responseCode = "200", description = "The count")
    @APIResponse(responseCode = "400", description = "invalid-room-id, invalid-time, invalid-time-range")
    @APIResponse(responseCode = "403", description = "forbidden: only the session's anchor (or a back end)")
    @APIResponse(responseCode = "404", description = "no-open-session")
    public FansEntered fansEntered(@PathParam("roomId") String roomId, @QueryParam("from") String from,
                                   @QueryParam("to") String to, @Context SecurityContext sc) {
        String room = LiveRooms.roomId(roomId);
        OffsetDateTime f = time("from", from);
        OffsetDateTime t = time("to", to);
        if (!f.isBefore(t)) {
            throw ProblemException.badRequest("invalid-time-range", "from must be before to.");
        }
        RoomSession s = rooms.openSession(room);
        requireAnchorOrOperator(s, sc);
        return new FansEntered(room, Long.toString(s.id()), f, t, rooms.fansEntered(room, f, t));
    }

    @GET
    @Path("/fans/loyal")
    @Operation(operationId = "listLoyalFans",
            summary = "Fans present in all (mode=all) or any (mode=any) of the room's last N sessions")
    @APIResponse(responseCode = "200", description = "A page of fans")
    @APIResponse(responseCode = "400", description = "invalid-room-id, invalid-sessions, invalid-mode, invalid-id, invalid-limit")
    @APIResponse(responseCode = "403", description = "forbidden: only the session's anchor (or a back end)")
    @APIResponse(responseCode = "404", description = "not-found: the room has no sessions")
    public LoyalFans loyalFans(@PathParam("roomId") String roomId, @QueryParam("sessions") @DefaultValue("7") int sessions,
                               @QueryParam("mode") @DefaultValue("all") String mode, @QueryParam("after") String after,
                               @QueryParam("limit") @DefaultValue("100") int limit, @Context SecurityContext sc) {
        String room = LiveRooms.roomId(roomId);
        if (sessions < 1 || sessions > MAX_SESSIONS) {
            throw ProblemException.badRequest("invalid-sessions", "sessions is 1 to " + MAX_SESSIONS + ".");
        }
        if (!mode.equals("all") && !mode.equals("any")) {
            throw ProblemException.badRequest("invalid-mode", "mode is all (in every session) or any (in at least one).");
        }
        int n = Page.checkLimit(limit, MAX_LIMIT);
        List<Long> ids = rooms.recentSessions(room, sessions);
        if (ids.isEmpty()) {
            throw ProblemException.notFound("Room " + room + " has no sessions.");
        }
        requireAnchorOrOperator(rooms.session(room, ids.get(0)), sc);
        Page<LoyalFanView> page = Page.of(rooms.loyalFans(ids, mode.equals("all"), after == null ? null : Ids.parse(after), n + 1),
                n, f -> new LoyalFanView(Long.toString(f.uid()), f.sessions(), f.onlineMs()), LoyalFanView::uid);
        return new LoyalFans(mode, ids.stream().map(String::valueOf).toList(), page.items(), page.next());
    }

    // ---- helpers ----

    /** The uid a user may act as: itself only ({@code me} or its own id); back ends any. */
    private static long self(String uid, SecurityContext sc) {
        return Caller.requireSelfOrOperator(Caller.user(uid, sc), sc, "Users enter, heartbeat and leave only as themselves.");
    }

    private static List<Long> uids(UidsBody body) {
        return body.uids().stream().map(Ids::parse).toList();
    }

    private static void requireAnchorOrOperator(RoomSession s, SecurityContext sc) {
        if (!Caller.actsForOthers(sc) && s.anchorId() != Caller.id(sc)) {
            throw ProblemException.forbidden("Only the session's anchor (or a back end) may read its viewers and fans.");
        }
    }

    private static OffsetDateTime time(String name, String value) {
        if (value == null) {
            throw ProblemException.badRequest("invalid-time", name + " is required (ISO-8601, e.g. 2026-11-22T10:00:00Z).");
        }
        try {
            return OffsetDateTime.parse(value);
        } catch (DateTimeParseException e) {
            throw ProblemException.badRequest("invalid-time", name + " is not an ISO-8601 time with offset: " + value);
        }
    }
}
