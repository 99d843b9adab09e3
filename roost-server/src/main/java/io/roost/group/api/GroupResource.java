package io.roost.group.api;

import io.roost.group.GroupInviteLinks;
import io.roost.group.GroupService;
import io.roost.group.InviteLinkView;
import io.roost.group.GroupView;
import io.roost.group.MemberView;
import io.roost.group.RequestView;
import io.roost.platform.api.Page;
import io.roost.platform.ids.Ids;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.security.Caller;
import io.roost.platform.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
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
import java.time.Duration;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Groups and channels over REST. Refusals are 403 problem+json and change nothing. */
@Path("/v1/groups")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.ADMIN, Roles.SERVICE, Roles.USER})
@Tag(name = "groups")
public class GroupResource {

    public record CreateBody(@NotBlank @Size(max = 100) String name,
                             @NotNull @Pattern(regexp = "chat|channel", message = "must be chat or channel") String type,
                             @Pattern(regexp = "open|approval|invite-only", message = "must be open, approval or invite-only") String joinPolicy,
                             @Pattern(regexp = "public|hidden", message = "must be public or hidden") String visibility,
                             @Size(max = 2000) String notice, @Size(max = 1024) String iconUrl,
                             @Size(max = 10) List<@NotBlank @Size(max = 64) String> tags) {
    }

    public record InfoBody(@Size(min = 1, max = 100) String name, @Size(max = 2000) String notice,
                           @Size(max = 1024) String iconUrl, @Size(max = 10) List<@NotBlank @Size(max = 64) String> tags,
                           @Pattern(regexp = "open|approval|invite-only", message = "must be open, approval or invite-only") String joinPolicy,
                           @Pattern(regexp = "public|hidden", message = "must be public or hidden") String visibility) {
    }

    public record MessageBody(@Size(max = 500) String message) {
    }

    public record InviteBody(@NotNull @Size(max = 20) String uid, @Size(max = 500) String message) {
    }

    @Schema(name = "GroupRequestAnswer") // in the OpenAPI document: another API type has the same simple name
    public record AnswerBody(@NotNull @Pattern(regexp = "accept|reject", message = "must be accept or reject") String decision,
                             @Size(max = 500) String note) {
    }

    public record MyInfoBody(@Size(max = 64) String nick, @Size(max = 1024) String avatarUrl) {
    }

    public record JoinResult(boolean member, RequestView request) {
    }

    public record MuteBody(@Schema(description = "muted until this time; absent: for good") java.time.OffsetDateTime until) {
    }

    public record InviteLinkBody(@Min(60) @Max(2_592_000) Long ttlSeconds) {
    }

    public record InviteTokenBody(@NotBlank @Size(max = 100) String token) {
    }

    @Inject
    GroupService groups;

    @Inject
    GroupInviteLinks links;

    @POST
    @Operation(operationId = "createGroup", summary = "Create a chat group or a channel; the creator is its owner (O)")
    @APIResponse(responseCode = "201", description = "Created",
            content = @Content(schema = @Schema(implementation = GroupView.class)))
    public Response create(@NotNull @Valid CreateBody b, @Context SecurityContext sc) {
        GroupService.Group g = groups.create(Caller.id(sc), b.name().trim(), b.type(), b.joinPolicy(), b.visibility(), b.notice(),
                b.iconUrl(), b.tags());
        return Response.status(201).entity(GroupView.of(g)).build();
    }

    @GET
    @Operation(operationId = "searchGroups",
            summary = "Search public groups: q= (name prefix, paged by after=name:id) or tag= (paged by after=id); neither: a random sample")
    @APIResponse(responseCode = "200", description = "A page of groups")
    @APIResponse(responseCode = "400", description = "one-criterion, invalid-query, invalid-id, invalid-limit")
    public Page<GroupView> search(@QueryParam("q") String q, @QueryParam("tag") String tag, @QueryParam("after") String after,
                                  @QueryParam("limit") @DefaultValue("20") int limit) {
        return groups.search(q, tag, after, limit);
    }

    @GET
    @Path("/{id}")
    @Operation(operationId = "getGroup", summary = "A group you may see (public; hidden: its members, admin, service)")
    @APIResponse(responseCode = "200", description = "The group")
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "404", description = "not-found: no such group (or it is hidden from you)")
    public GroupView get(@PathParam("id") String id, @Context SecurityContext sc) {
        return GroupView.of(groups.visible(Caller.id(sc), Caller.actsForOthers(sc), Ids.parse(id)));
    }

    @PATCH
    @Path("/{id}")
    @Operation(operationId = "updateGroup", summary = "Set name, notice, icon, tags, join policy (admins); visibility (owner)")
    @APIResponse(responseCode = "200", description = "The group")
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "403", description = "forbidden: group admins; the visibility: the owner")
    @APIResponse(responseCode = "404", description = "not-found: no such group (or it is hidden from you)")
    @APIResponse(responseCode = "409", description = "group-dissolved")
    public GroupView setInfo(@PathParam("id") String id, @NotNull @Valid InfoBody b, @Context SecurityContext sc) {
        return GroupView.of(groups.setInfo(Caller.id(sc), Ids.parse(id), new GroupService.InfoChange(b.name(), b.notice(), b.iconUrl(),
                b.tags(), b.joinPolicy(), b.visibility())));
    }

    @DELETE
    @Path("/{id}")
    @Operation(operationId = "dissolveGroup", summary = "Dissolve (owner); members online are told; the history stays read-only")
    @APIResponse(responseCode = "200", description = "The dissolved group")
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "403", description = "forbidden: the owner only")
    @APIResponse(responseCode = "404", description = "not-found: no such group (or it is hidden from you)")
    @APIResponse(responseCode = "409", description = "group-dissolved")
    public GroupView dissolve(@PathParam("id") String id, @Context SecurityContext sc) {
        return GroupView.of(groups.dissolve(Caller.id(sc), Ids.parse(id)));
    }

    @GET
    @Path("/{id}/members")
    @Operation(operationId = "listGroupMembers", summary = "Members with roles, paged by after=uid (members, admin, service)")
    @APIResponse(responseCode = "200", description = "A page of members")
    @APIResponse(responseCode = "400", description = "invalid-id, invalid-limit")
    @APIResponse(responseCode = "403", description = "forbidden: members (and back ends) only")
    @APIResponse(responseCode = "404", description = "not-found: no such group (or it is hidden from you)")
    public Page<MemberView> members(@PathParam("id") String id, @QueryParam("after") String after,
                                    @QueryParam("limit") @DefaultValue("100") int limit, @Context SecurityContext sc) {
        return groups.members(Caller.id(sc), Caller.actsForOthers(sc), Ids.parse(id), after == null ? null : Ids.parse(after),
                limit);
    }

    @POST
    @Path("/{id}/join")
    @Operation(operationId = "joinGroup",
            summary = "Join: open groups at once; approval groups file a request (sent to online admins)")
    @APIResponse(responseCode = "200", description = "A member now (open group)",
            content = @Content(schema = @Schema(implementation = JoinResult.class)))
    @APIResponse(responseCode = "202", description = "A join request was filed (approval group)",
            content = @Content(schema = @Schema(implementation = JoinResult.class)))
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "403", description = "forbidden: by invitation only (public groups)")
    @APIResponse(responseCode = "404", description = "not-found: no such group (or it is hidden from you: hidden groups are joined by invitation)")
    @APIResponse(responseCode = "409", description = "already-member, group-dissolved")
    public Response join(@PathParam("id") String id, @Valid MessageBody b, @Context SecurityContext sc) {
        GroupService.JoinOutcome o = groups.requestJoin(Caller.id(sc), Ids.parse(id), b == null ? null : b.message());
        return Response.status(o.member() ? 200 : 202)
                .entity(new JoinResult(o.member(), o.request() == null ? null : RequestView.of(o.request()))).build();
    }

    @GET
    @Path("/{id}/requests")
    @Operation(operationId = "listJoinRequests", summary = "Pending join requests (admins)")
    @APIResponse(responseCode = "200", description = "A page of requests")
    @APIResponse(responseCode = "400", description = "invalid-id, invalid-limit")
    @APIResponse(responseCode = "403", description = "forbidden: group admins only")
    @APIResponse(responseCode = "404", description = "not-found: no such group (or it is hidden from you)")
    public Page<RequestView> requests(@PathParam("id") String id, @QueryParam("before") String before,
                                      @QueryParam("limit") @DefaultValue("50") int limit, @Context SecurityContext sc) {
        return groups.pendingJoins(Caller.id(sc), Ids.parse(id), before, limit);
    }

    @POST
    @Path("/requests/{requestId}/answer")
    @Operation(operationId = "answerGroupRequest", summary = "Answer a join request (admins) or an invitation (the invitee)")
    @APIResponse(responseCode = "200", description = "The answered request")
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "403", description = "forbidden: group admins (join requests) only")
    @APIResponse(responseCode = "404", description = "not-found: no such request (or invitation for you), or no such group")
    @APIResponse(responseCode = "409", description = "request-not-pending, group-dissolved")
    public RequestView answer(@PathParam("requestId") String requestId, @NotNull @Valid AnswerBody b, @Context SecurityContext sc) {
        long rid = Ids.parse(requestId);
        GroupService.Request r = groups.findRequest(rid).orElseThrow(() -> ProblemException.notFound("No request " + rid));
        boolean accept = b.decision().equals("accept");
        return RequestView.of(r.kind().equals("invite") ? groups.answerInvite(Caller.id(sc), rid, accept)
                : groups.answerJoin(Caller.id(sc), rid, accept, b.note()));
    }

    @POST
    @Path("/{id}/invitations")
    @Operation(operationId = "inviteToGroup", summary = "Invite a user (hidden groups: admins; public groups: any member)")
    @APIResponse(responseCode = "201", description = "The invitation",
            content = @Content(schema = @Schema(implementation = RequestView.class)))
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "403", description = "forbidden: members (hidden groups: admins) only")
    @APIResponse(responseCode = "404", description = "not-found: no such group or user")
    @APIResponse(responseCode = "409", description = "already-member, group-dissolved")
    public Response invite(@PathParam("id") String id, @NotNull @Valid InviteBody b, @Context SecurityContext sc) {
        return Response.status(201).entity(RequestView.of(groups.invite(Caller.id(sc), Ids.parse(id), Ids.parse(b.uid()), b.message()))).build();
    }

    @POST
    @Path("/{id}/invite-links")
    @Operation(operationId = "createGroupInviteLink",
            summary = "An invite link (admins): its token admits whoever holds it, until it expires (ttlSeconds, 60 to 30 days, default 7 days) or is revoked")
    @APIResponse(responseCode = "201", description = "The link, with its token (shown this once: only its hash is stored)",
            content = @Content(schema = @Schema(implementation = InviteLinkView.class)))
    @APIResponse(responseCode = "400", description = "invalid-id, validation-failed")
    @APIResponse(responseCode = "403", description = "forbidden: group admins only")
    @APIResponse(responseCode = "404", description = "not-found: no such group (or it is hidden from you)")
    @APIResponse(responseCode = "409", description = "group-dissolved")
    public Response createInviteLink(@PathParam("id") String id, @Valid InviteLinkBody b, @Context SecurityContext sc) {
        Duration ttl = b == null || b.ttlSeconds() == null ? GroupInviteLinks.DEFAULT_TTL : Duration.ofSeconds(b.ttlSeconds());
        return Response.status(201).entity(links.create(Caller.id(sc), Ids.parse(id), ttl)).build();
    }

    @DELETE
    @Path("/{id}/invite-links/{linkId}")
    @Operation(operationId = "revokeGroupInviteLink", summary = "Revoke an invite link (admins); again: nothing changes")
    @APIResponse(responseCode = "204", description = "Revoked")
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "403", description = "forbidden: group admins only")
    @APIResponse(responseCode = "404", description = "not-found: no such group (or it is hidden from you), or no such link in it")
    @APIResponse(responseCode = "409", description = "group-dissolved")
    public Response revokeInviteLink(@PathParam("id") String id, @PathParam("linkId") String linkId, @Context SecurityContext sc) {
        links.revoke(Caller.id(sc), Ids.parse(id), Ids.parse(linkId));
        return Response.noContent().build();
    }

    @POST
    @Path("/join-by-link")
    @Operation(operationId = "joinGroupByLink",
            summary = "Join the group of an invite link at once (any join policy, hidden groups too)")
    @APIResponse(responseCode = "200", description = "A member now: the group",
            content = @Content(schema = @Schema(implementation = GroupView.class)))
    @APIResponse(responseCode = "400", description = "validation-failed")
    @APIResponse(responseCode = "404", description = "not-found: the token is unknown, expired or revoked")
    @APIResponse(responseCode = "409", description = "already-member, group-dissolved")
    public GroupView joinByLink(@NotNull @Valid InviteTokenBody b, @Context SecurityContext sc) {
        return GroupView.of(links.join(Caller.id(sc), b.token()));
    }

    @DELETE
    @Path("/{id}/members/{uid}")
    @Operation(operationId = "removeGroupMember",
            summary = "Kick a member (admins kick W/R, the owner anyone); with your own uid: quit")
    @APIResponse(responseCode = "204", description = "Removed (or quit)")
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "403", description = "forbidden: only a stronger role removes a member")
    @APIResponse(responseCode = "404", description = "not-found: no such group, or the user is not a member")
    @APIResponse(responseCode = "409", description = "owner-cannot-quit, group-dissolved")
    public Response remove(@PathParam("id") String id, @PathParam("uid") String uid, @Context SecurityContext sc) {
        long target = Caller.user(uid, sc);
        if (target == Caller.id(sc)) {
            groups.quit(Caller.id(sc), Ids.parse(id));
        } else {
            groups.kick(Caller.id(sc), Ids.parse(id), target);
        }
        return Response.noContent().build();
    }

    @PUT
    @Path("/{id}/mutes/{uid}")
    @Operation(operationId = "muteGroupMember", summary = "Mute a member (admins mute W/R, the owner anyone): it reads but may not send")
    @APIResponse(responseCode = "204", description = "Muted until the time given, or for good")
    @APIResponse(responseCode = "400", description = "invalid-id, invalid-until (not in the future)")
    @APIResponse(responseCode = "403", description = "forbidden: only a stronger role mutes a member")
    @APIResponse(responseCode = "404", description = "not-found: no such group, or the user is not a member")
    @APIResponse(responseCode = "409", description = "group-dissolved")
    public Response mute(@PathParam("id") String id, @PathParam("uid") String uid, @Valid MuteBody b, @Context SecurityContext sc) {
        groups.mute(Caller.id(sc), Ids.parse(id), Ids.parse(uid), b == null ? null : b.until(), true);
        return Response.noContent().build();
    }

    @DELETE
    @Path("/{id}/mutes/{uid}")
    @Operation(operationId = "unmuteGroupMember", summary = "Unmute a member (admins: W/R, the owner anyone)")
    @APIResponse(responseCode = "204", description = "May send again")
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "403", description = "forbidden: only a stronger role unmutes a member")
    @APIResponse(responseCode = "404", description = "not-found: no such group, or the user is not a member")
    @APIResponse(responseCode = "409", description = "group-dissolved")
    public Response unmute(@PathParam("id") String id, @PathParam("uid") String uid, @Context SecurityContext sc) {
        groups.mute(Caller.id(sc), Ids.parse(id), Ids.parse(uid), null, false);
        return Response.noContent().build();
    }

    @PUT
    @Path("/{id}/admins/{uid}")
    @Operation(operationId = "addGroupAdmin", summary = "Make a member an admin (owner)")
    @APIResponse(responseCode = "204", description = "An admin now")
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "403", description = "forbidden: the owner only")
    @APIResponse(responseCode = "404", description = "not-found: no such group, or the user is not a member")
    @APIResponse(responseCode = "409", description = "is-owner, group-dissolved")
    public Response addAdmin(@PathParam("id") String id, @PathParam("uid") String uid, @Context SecurityContext sc) {
        groups.setAdmin(Caller.id(sc), Ids.parse(id), Ids.parse(uid), true);
        return Response.noContent().build();
    }

    @DELETE
    @Path("/{id}/admins/{uid}")
    @Operation(operationId = "removeGroupAdmin", summary = "Take the admin role away (owner)")
    @APIResponse(responseCode = "204", description = "Not an admin (any more)")
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "403", description = "forbidden: the owner only")
    @APIResponse(responseCode = "404", description = "not-found: no such group, or the user is not a member")
    @APIResponse(responseCode = "409", description = "is-owner, group-dissolved")
    public Response removeAdmin(@PathParam("id") String id, @PathParam("uid") String uid, @Context SecurityContext sc) {
        groups.setAdmin(Caller.id(sc), Ids.parse(id), Ids.parse(uid), false);
        return Response.noContent().build();
    }

    @PUT
    @Path("/{id}/owner/{uid}")
    @Operation(operationId = "transferGroupOwner", summary = "Transfer the ownership (owner); the old owner becomes an admin")
    @APIResponse(responseCode = "200", description = "The group")
    @APIResponse(responseCode = "400", description = "invalid-id, self-transfer")
    @APIResponse(responseCode = "403", description = "forbidden: the owner only")
    @APIResponse(responseCode = "404", description = "not-found: no such group, or the user is not a member")
    @APIResponse(responseCode = "409", description = "group-dissolved")
    public GroupView transfer(@PathParam("id") String id, @PathParam("uid") String uid, @Context SecurityContext sc) {
        return GroupView.of(groups.transferOwner(Caller.id(sc), Ids.parse(id), Ids.parse(uid)));
    }

    @PATCH
    @Path("/{id}/members/me")
    @Operation(operationId = "updateMyGroupMembership", summary = "Your nick and avatar in this group")
    @APIResponse(responseCode = "200", description = "Your membership")
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "404", description = "not-found: no such group, or you are not a member")
    @APIResponse(responseCode = "409", description = "group-dissolved")
    public MemberView setMyInfo(@PathParam("id") String id, @NotNull @Valid MyInfoBody b, @Context SecurityContext sc) {
        return MemberView.of(groups.setMyInfo(Caller.id(sc), Ids.parse(id), b.nick(), b.avatarUrl()));
    }

    @GET
    @Path("/of/{uid}")
    @Operation(operationId = "listGroupsOf",
            summary = "The groups a user is in (yourself: me; others: admin, service), paged by after=id")
    @APIResponse(responseCode = "200", description = "A page of groups")
    @APIResponse(responseCode = "400", description = "invalid-id, invalid-limit")
    @APIResponse(responseCode = "403", description = "forbidden: users list only their own groups")
    public Page<GroupView> groupsOf(@PathParam("uid") String uid, @QueryParam("after") String after,
                                    @QueryParam("limit") @DefaultValue("100") int limit, @Context SecurityContext sc) {
        long u = Caller.user(uid, sc);
        if (u != Caller.id(sc) && !Caller.actsForOthers(sc)) {
            throw ProblemException.forbidden("Users may list only their own groups.");
        }
        return groups.groupsOf(u, after, limit);
    }
}
