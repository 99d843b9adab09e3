package io.roost.admin.api;

import io.roost.admin.AdminActions;
import io.roost.group.GroupService;
import io.roost.group.GroupView;
import io.roost.group.MemberView;
import io.roost.platform.api.Page;
import io.roost.platform.ids.Ids;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.security.Caller;
import io.roost.platform.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.SecurityContext;
import java.time.OffsetDateTime;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * Groups for operators: every group (hidden and dissolved too), and the changes an operator makes in
 * any group without a role in it, through {@link GroupService}'s operator entry points (the same
 * effects as the group API's own: group events, system messages in the group's chat, the members'
 * devices told), each audited by {@link AdminActions}. The owner changes only by a transfer.
 */
@Path("/v1/admin/groups")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.ADMIN)
@Tag(name = "admin")
@APIResponse(responseCode = "403", description = "forbidden: operators (the admin role) only")
public class AdminGroupResource {

    @Inject
    AdminActions actions;

    @Inject
    GroupService groups;

    @GET
    @Operation(operationId = "searchAllGroups",
            summary = "Every group (hidden and dissolved too) by name prefix, paged by after=id")
    @APIResponse(responseCode = "200", description = "A page of groups")
    @APIResponse(responseCode = "400", description = "invalid-query, invalid-id, invalid-limit")
    public Page<GroupView> groups(@QueryParam("q") @DefaultValue("") String q, @QueryParam("after") String after,
                                  @QueryParam("limit") @DefaultValue("50") int limit) {
        return groups.searchAll(q, after, limit);
    }

    @GET
    @Path("/{id}")
    @Operation(operationId = "adminGetGroup", summary = "One group, whatever its visibility or status")
    @APIResponse(responseCode = "200", description = "The group")
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "404", description = "not-found: no such group")
    public GroupView group(@PathParam("id") String id) {
        return GroupView.of(groups.find(Ids.parse(id)).orElseThrow(() -> ProblemException.notFound("No group " + id)));
    }

    @GET
    @Path("/{id}/members")
    @Operation(operationId = "adminListGroupMembers", summary = "A group's members with roles, paged by after=uid")
    @APIResponse(responseCode = "200", description = "A page of members")
    @APIResponse(responseCode = "400", description = "invalid-id, invalid-limit")
    @APIResponse(responseCode = "404", description = "not-found: no such group")
    public Page<MemberView> members(@PathParam("id") String id, @QueryParam("after") String after,
                                    @QueryParam("limit") @DefaultValue("100") int limit) {
        long g = Ids.parse(id);
        groups.find(g).orElseThrow(() -> ProblemException.notFound("No group " + id));
        return groups.members(g, after, limit);
    }

    @DELETE
    @Path("/{id}")
    @Operation(operationId = "adminDissolveGroup",
            summary = "Dissolve a group (members online are told; its history stays readable)")
    @APIResponse(responseCode = "200", description = "The dissolved group")
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "404", description = "not-found: no such group")
    @APIResponse(responseCode = "409", description = "group-dissolved")
    public GroupView dissolve(@PathParam("id") String id, @Context SecurityContext sc) {
        long g = Ids.parse(id);
        return GroupView.of(actions.run(Caller.id(sc), "dissolve", "group", id, null,
                () -> groups.dissolveAsOperator(Caller.id(sc), g)));
    }

    @PUT
    @Path("/{id}/owner/{uid}")
    @Operation(operationId = "adminTransferGroupOwner", summary = "Make a member the owner (the old owner becomes admin)")
    @APIResponse(responseCode = "200", description = "The group")
    @APIResponse(responseCode = "400", description = "invalid-id, self-transfer")
    @APIResponse(responseCode = "404", description = "not-found: no such group, or the user is not a member")
    @APIResponse(responseCode = "409", description = "group-dissolved")
    public GroupView transferOwner(@PathParam("id") String id, @PathParam("uid") String uid, @Context SecurityContext sc) {
        long g = Ids.parse(id);
        long target = Ids.parse(uid);
        return GroupView.of(actions.run(Caller.id(sc), "transfer-owner", "group", id, "to " + uid,
                () -> groups.transferOwnerAsOperator(Caller.id(sc), g, target)));
    }

    @Schema(name = "AdminGroupMute")
    public record MuteBody(@Schema(description = "muted until this time; absent: for good") OffsetDateTime until) {
    }

    @PUT
    @Path("/{id}/mutes/{uid}")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "adminMuteGroupMember",
            summary = "Mute any member but the owner in any group, until a time or for good: it reads but may not send; audited")
    @APIResponse(responseCode = "200", description = "The member, muted")
    @APIResponse(responseCode = "400", description = "invalid-id, invalid-until (not in the future), malformed-json")
    @APIResponse(responseCode = "404", description = "not-found: no such group, or the user is not a member")
    @APIResponse(responseCode = "409", description = "is-owner, group-dissolved")
    public MemberView muteMember(@PathParam("id") String id, @PathParam("uid") String uid, @Valid MuteBody b,
                                 @Context SecurityContext sc) {
        long g = Ids.parse(id);
        long target = Ids.parse(uid);
        OffsetDateTime until = b == null ? null : b.until();
        return MemberView.of(actions.run(Caller.id(sc), "mute-member", "group", id, "uid " + uid + (until == null ? " for good" : " until " + until),
                () -> groups.muteAsOperator(Caller.id(sc), g, target, until, true)));
    }

    @DELETE
    @Path("/{id}/mutes/{uid}")
    @Operation(operationId = "adminUnmuteGroupMember", summary = "Unmute any member but the owner in any group; audited")
    @APIResponse(responseCode = "200", description = "The member, who may send again")
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "404", description = "not-found: no such group, or the user is not a member")
    @APIResponse(responseCode = "409", description = "is-owner, group-dissolved")
    public MemberView unmuteMember(@PathParam("id") String id, @PathParam("uid") String uid, @Context SecurityContext sc) {
        long g = Ids.parse(id);
        long target = Ids.parse(uid);
        return MemberView.of(actions.run(Caller.id(sc), "unmute-member", "group", id, "uid " + uid,
                () -> groups.muteAsOperator(Caller.id(sc), g, target, null, false)));
    }

    @DELETE
    @Path("/{id}/members/{uid}")
    @Operation(operationId = "adminRemoveGroupMember",
            summary = "Remove any member but the owner from any group: it is told (kicked) and sees nothing after its removal; audited")
    @APIResponse(responseCode = "200", description = "The group")
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "404", description = "not-found: no such group, or the user is not a member")
    @APIResponse(responseCode = "409", description = "is-owner, group-dissolved")
    public GroupView removeMember(@PathParam("id") String id, @PathParam("uid") String uid, @Context SecurityContext sc) {
        long g = Ids.parse(id);
        long target = Ids.parse(uid);
        return GroupView.of(actions.run(Caller.id(sc), "remove-member", "group", id, "uid " + uid, () -> {
            groups.kickAsOperator(Caller.id(sc), g, target);
            return groups.find(g).orElseThrow();
        }));
    }
}
