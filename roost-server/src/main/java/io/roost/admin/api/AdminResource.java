package io.roost.admin.api;

import io.roost.admin.AdminActions;
import io.roost.admin.AuditTrail;
import io.roost.admin.MetricsSampler;
import io.roost.admin.Overview;
import io.roost.chat.ChatService;
import io.roost.chat.MessageView;
import io.roost.identity.AccountService;
import io.roost.identity.AccountView;
import io.roost.identity.TokenService;
import io.roost.platform.api.Page;
import io.roost.platform.config.DeviceTypes;
import io.roost.platform.ids.Ids;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.security.Caller;
import io.roost.platform.security.Roles;
import io.roost.room.LiveRooms;
import io.roost.presence.RtcPresence;
import io.roost.presence.session.DeviceSessions;
import io.roost.presence.session.OnlineDevice;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * The admin API (operators only): the overview and its history, and the actions of the admin UI.
 * Every action goes through {@link AdminActions}, so each is in the audit log with its outcome.
 * Read-only views that other APIs already give operators (channels, MQTT clients, rooms, login
 * log) are used from there.
 */
@Path("/v1/admin")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.ADMIN)
@Tag(name = "admin")
@APIResponse(responseCode = "403", description = "forbidden: operators (the admin role) only")
public class AdminResource {

    static final int MAX_LIMIT = 200;
    static final Map<String, Duration[]> RANGES = Map.of(
            "1h", new Duration[] {Duration.ofHours(1), Duration.ofSeconds(10)},
            "6h", new Duration[] {Duration.ofHours(6), Duration.ofMinutes(1)},
            "1d", new Duration[] {Duration.ofDays(1), Duration.ofMinutes(5)},
            "7d", new Duration[] {Duration.ofDays(7), Duration.ofMinutes(30)});

    public record Metrics(String range, long stepSeconds, List<MetricsSampler.Series> series) {
    }

    public record AuditView(String id, OffsetDateTime at, String actorId, String action, String targetType, String targetId,
                            String detail, String outcome) {
        static AuditView of(AuditTrail.Entry e) {
            return new AuditView(Long.toString(e.id()), e.at(), Long.toString(e.actorId()), e.action(), e.targetType(),
                    e.targetId(), e.detail(), e.outcome());
        }
    }

    public record AccountDetail(AccountView account, List<OnlineDevice> devices) {
    }

    @Schema(name = "ActionCount") // in the OpenAPI document: another API type has the same simple name
    public record Count(int count) {
    }

    @Inject
    Overview overview;

    @Inject
    MetricsSampler metrics;

    @Inject
    AuditTrail audit;

    @Inject
    AdminActions actions;

    @Inject
    io.roost.media.MediaLibrary media;

    @Inject
    AccountService accounts;

    @Inject
    TokenService tokens;

    @Inject
    DeviceSessions sessions;

    @Inject
    DeviceTypes deviceTypes;

    @Inject
    RtcPresence rtc;

    @Inject
    LiveRooms rooms;

    @Inject
    ChatService chat;

    @Inject
    io.roost.chat.group.GroupChat groupChat;

    // ---- overview ----

    @GET
    @Path("/overview")
    @Operation(operationId = "getOverview",
            summary = "Online users by device type, RTC channels, MQTT clients, live rooms, consumer lag, outbox, dead letters, health")
    @APIResponse(responseCode = "200", description = "The numbers now")
    public Overview.Numbers overview() {
        return overview.now();
    }

    @GET
    @Path("/metrics")
    @Operation(operationId = "getMetrics",
            summary = "The overview numbers over time (range 1h, 6h, 1d, 7d), averaged per step, for charts")
    @APIResponse(responseCode = "200", description = "The series")
    @APIResponse(responseCode = "400", description = "invalid-range")
    public Metrics metrics(@QueryParam("range") @DefaultValue("1h") String range) {
        Duration[] r = RANGES.get(range);
        if (r == null) {
            throw ProblemException.badRequest("invalid-range", "range is 1h, 6h, 1d or 7d.");
        }
        return new Metrics(range, r[1].toSeconds(), metrics.series(r[0], r[1]));
    }

    @GET
    @Path("/audit")
    @Operation(operationId = "listAuditEntries",
            summary = "The audit log, newest first (before=id); targetType/targetId narrow it")
    @APIResponse(responseCode = "200", description = "A page of entries")
    @APIResponse(responseCode = "400", description = "invalid-id, invalid-limit")
    public Page<AuditView> audit(@QueryParam("targetType") String targetType, @QueryParam("targetId") String targetId,
                                 @QueryParam("before") String before, @QueryParam("limit") @DefaultValue("50") int limit) {
        int n = Page.checkLimit(limit, MAX_LIMIT);
        return Page.of(audit.entries(targetType, targetId, before == null ? null : Ids.parse(before), n + 1), n, AuditView::of,
                AuditView::id);
    }

    // ---- accounts ----

    @GET
    @Path("/accounts")
    @Operation(operationId = "searchAccounts",
            summary = "Accounts of any status: q = an id, or a user-name prefix (paged by after=name)")
    @APIResponse(responseCode = "200", description = "A page of accounts")
    @APIResponse(responseCode = "400", description = "invalid-query, invalid-limit")
    public Page<AccountView> accounts(@QueryParam("q") @DefaultValue("") String q, @QueryParam("after") String after,
                                      @QueryParam("limit") @DefaultValue("50") int limit) {
        int n = Page.checkLimit(limit, MAX_LIMIT);
        if (q.matches("[0-9]{1,19}")) {
            var byId = accounts.findView(Long.parseLong(q)).stream().toList();
            if (!byId.isEmpty()) {
                return Page.last(byId);
            }
        }
        if (q.length() > 64) {
            throw ProblemException.badRequest("invalid-query", "q is at most 64 characters.");
        }
        return Page.of(accounts.searchAnyStatus(q, after, n + 1), n, v -> v, v -> v.username().toLowerCase());
    }

    @GET
    @Path("/accounts/{id}")
    @Operation(operationId = "getAccountDetail", summary = "An account with its online devices")
    @APIResponse(responseCode = "200", description = "The account and its devices")
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "404", description = "not-found: no such account")
    public AccountDetail account(@PathParam("id") String id) {
        long uid = Ids.parse(id);
        return new AccountDetail(accounts.view(uid), sessions.routesOf(uid).stream()
                .map(OnlineDevice::of).toList());
    }

    @POST
    @Path("/accounts/{id}/disable")
    @Operation(operationId = "adminDisableAccount", summary = "Disable: every token revoked, every socket kicked")
    @APIResponse(responseCode = "200", description = "The disabled account")
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "404", description = "not-found: no such account")
    @APIResponse(responseCode = "409", description = "account-unregistered")
    public AccountView disable(@PathParam("id") String id, @Context SecurityContext sc) {
        long uid = Ids.parse(id);
        return actions.run(Caller.id(sc), "disable", "account", id, null, () -> accounts.disable(uid, true));
    }

    @POST
    @Path("/accounts/{id}/recover")
    @Operation(operationId = "adminRecoverAccount", summary = "Recover a disabled account")
    @APIResponse(responseCode = "200", description = "The recovered account")
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "404", description = "not-found: no such account")
    @APIResponse(responseCode = "409", description = "account-unregistered")
    public AccountView recover(@PathParam("id") String id, @Context SecurityContext sc) {
        long uid = Ids.parse(id);
        return actions.run(Caller.id(sc), "recover", "account", id, null, () -> accounts.recover(uid));
    }

    @DELETE
    @Path("/accounts/{id}/tokens")
    @Operation(operationId = "revokeAccountTokens", summary = "Revoke every token of the account (its devices must log in again)")
    @APIResponse(responseCode = "200", description = "How many tokens were revoked")
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "404", description = "not-found: no such account")
    public Count revokeTokens(@PathParam("id") String id, @Context SecurityContext sc) {
        long uid = Ids.parse(id);
        accounts.view(uid); // 404 unless the account exists
        return new Count(actions.run(Caller.id(sc), "revoke-tokens", "account", id, null, () -> tokens.revokeAll(uid)));
    }

    @DELETE
    @Path("/accounts/{id}/devices/{deviceType}")
    @Operation(operationId = "kickAccountDevice",
            summary = "Kick the account's device of this type (kick frame, closed); count = sessions ended")
    @APIResponse(responseCode = "200", description = "How many sessions ended")
    @APIResponse(responseCode = "400", description = "invalid-id, unknown-device-type")
    @APIResponse(responseCode = "404", description = "not-found: no device of this type online")
    public Count kickDevice(@PathParam("id") String id, @PathParam("deviceType") String deviceType, @Context SecurityContext sc) {
        long uid = Ids.parse(id);
        if (!deviceTypes.all().contains(deviceType)) {
            throw ProblemException.badRequest("unknown-device-type", "Device types are " + deviceTypes.all() + ".");
        }
        return new Count(actions.run(Caller.id(sc), "kick-device", "account", id, deviceType, () -> {
            int ended = sessions.kick(uid, deviceType);
            if (ended == 0) {
                throw ProblemException.notFound("Account " + id + " has no " + deviceType + " device online.");
            }
            return ended;
        }));
    }

    // ---- presence ----

    @POST
    @Path("/channels/{channelName}/members/{uid}/kick")
    @Operation(operationId = "kickChannelMember",
            summary = "Kick an RTC channel member through Agora's kicking rule (the 999 path; outcome on the channel's kicks)")
    @APIResponse(responseCode = "200", description = "The kick is scheduled (count 1)")
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "409", description = "not-online: not online in the channel, or a kick is scheduled already")
    public Count kickChannelMember(@PathParam("channelName") String channelName, @PathParam("uid") String uid,
                                   @Context SecurityContext sc) {
        long u = Ids.parse(uid);
        return new Count(actions.run(Caller.id(sc), "kick-channel-member", "channel", channelName, "uid " + uid, () -> {
            if (!rtc.kick(channelName, u)) {
                throw ProblemException.conflict("not-online", "User " + uid + " is not online in " + channelName
                        + " (or a kick for this stay is already scheduled).");
            }
            return 1;
        }));
    }

    @DELETE
    @Path("/rooms/{roomId}/session")
    @Operation(operationId = "adminCloseRoomSession", summary = "Close a room's live session")
    @APIResponse(responseCode = "200", description = "The closed session")
    @APIResponse(responseCode = "400", description = "invalid-room-id")
    @APIResponse(responseCode = "404", description = "no-open-session")
    public RoomView closeRoom(@PathParam("roomId") String roomId, @Context SecurityContext sc) {
        String room = LiveRooms.roomId(roomId);
        var s = actions.run(Caller.id(sc), "close-room", "room", room, null, () -> rooms.close(room, null));
        return new RoomView(room, Long.toString(s.id()), s.online(), s.onlineFans());
    }

    public record RoomView(String roomId, String sessionId, int online, int onlineFans) {
    }

    // ---- chat ----

    @Schema(name = "AdminChatRecall", description = "A message by its conversation and seq: owner and peer are its two sides"
            + " (either way round)")
    public record ChatRecallBody(@NotNull @Size(max = 20) String owner, @NotNull @Size(max = 20) String peer,
                                 @NotNull @PositiveOrZero Long seq) {
    }

    @POST
    @Path("/chat/messages/recall")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "adminRecallChatMessage",
            summary = "Recall any one-to-one message, at any age (no recall window): both timelines keep it without content, both"
                    + " sides' devices get chatRecall; audited. Recalling it again gets the same answer")
    @APIResponse(responseCode = "200", description = "The recalled message as its owner's timeline holds it",
            content = @Content(schema = @Schema(implementation = MessageView.class)))
    @APIResponse(responseCode = "400", description = "invalid-id, validation-failed")
    @APIResponse(responseCode = "404", description = "not-found: no such message in this conversation")
    public MessageView recallChatMessage(@NotNull @Valid ChatRecallBody b, @Context SecurityContext sc) {
        long owner = Ids.parse(b.owner());
        long peer = Ids.parse(b.peer());
        long operator = Caller.id(sc);
        return actions.run(operator, "recall-chat-message", "chat-message", owner + "/" + peer + "/" + b.seq(), null,
                () -> MessageView.of(chat.recallAsOperator(operator, owner, peer, b.seq())));
    }

    @POST
    @Path("/chat/groups/{group}/messages/{seq}/recall")
    @Operation(operationId = "adminRecallGroupMessage",
            summary = "Recall any group message, at any age: its row keeps its seq without content, the members' devices get"
                    + " chatRecall; audited. Recalling it again gets the same answer")
    @APIResponse(responseCode = "200", description = "The recalled message",
            content = @Content(schema = @Schema(implementation = io.roost.chat.group.GroupMessageView.class)))
    @APIResponse(responseCode = "400", description = "invalid-id, invalid-cursor")
    @APIResponse(responseCode = "404", description = "not-found: no such group or message")
    public io.roost.chat.group.GroupMessageView recallGroupMessage(@PathParam("group") String group, @PathParam("seq") String seq,
                                                                   @Context SecurityContext sc) {
        long groupId = Ids.parse(group);
        long at = Ids.parse(seq); // a seq: digits only
        long operator = Caller.id(sc);
        return actions.run(operator, "recall-group-message", "group-message", groupId + "/" + at, null,
                () -> io.roost.chat.group.GroupMessageView.of(groupChat.recall(operator, true, groupId, at)));
    }

    // ---- media ----

    @DELETE
    @Path("/media/{media}")
    @Operation(operationId = "adminRemoveMedia",
            summary = "Remove a stored file: its bytes deleted, its messages show it as removed, downloads answer 410; audited")
    @APIResponse(responseCode = "200", description = "The file as it was",
            content = @Content(schema = @Schema(implementation = io.roost.media.MediaFile.class)))
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "404", description = "unknown-media: no such file, or removed already")
    public io.roost.media.MediaFile removeMedia(@PathParam("media") String mediaId, @Context SecurityContext sc) {
        long id = Ids.parse(mediaId);
        long operator = Caller.id(sc);
        return actions.run(operator, "remove-media", "media", Long.toString(id), null, () -> media.remove(id, "operator:" + operator));
    }
}
