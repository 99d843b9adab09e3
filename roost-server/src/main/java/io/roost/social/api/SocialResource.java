package io.roost.social.api;

import io.roost.platform.api.Page;
import io.roost.platform.ids.Ids;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.security.Caller;
import io.roost.platform.security.Roles;
import io.roost.social.ContactPresence;
import io.roost.social.ContactPresenceView;
import io.roost.social.FriendRequestView;
import io.roost.social.SocialGraph;
import io.roost.social.SocialSettings;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
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
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * The social graph over REST. {@code me} stands for the caller's id in paths.
 * Follow endpoints work in follow mode, friend requests in approval mode (ROOST_SOCIAL_MODE);
 * the other mode's endpoints answer 409 {@code wrong-social-mode}.
 */
@Path("/v1/social")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.ADMIN, Roles.SERVICE, Roles.USER})
@Tag(name = "social")
public class SocialResource {

    public record FriendRequestBody(@NotNull @Size(max = 20) String to, @Size(max = 500) String message) {
    }

    @Schema(name = "FriendRequestAnswer") // in the OpenAPI document: another API type has the same simple name
    public record AnswerBody(@NotNull @Pattern(regexp = "accept|reject|ignore", message = "must be accept, reject or ignore")
                             String decision, @Size(max = 500) String note) {
    }

    public record PermissionBody(boolean hidePresence, boolean muted) {
    }

    public record RequestResult(FriendRequestView request, boolean friends) {
    }

    /** How this deployment runs the social graph: what a client needs to know before it follows or asks. */
    public record SocialSettingsView(
            @Schema(description = "follow (follow without consent) or approval (friend requests); the other mode's operations answer 409 wrong-social-mode")
            String mode,
            @Schema(description = "follow mode: messages a user the recipient does not follow may send first")
            int strangerMessageLimit) {
    }

    @Inject
    SocialGraph graph;

    @Inject
    SocialSettings settings;

    @Inject
    ContactPresence contactPresence;

    @GET
    @Path("/settings")
    @Operation(operationId = "socialSettings", summary = "The social mode of this deployment (follow or approval)")
    @APIResponse(responseCode = "200", description = "The settings",
            content = @Content(schema = @Schema(implementation = SocialSettingsView.class)))
    public SocialSettingsView settings() {
        return new SocialSettingsView(settings.modeName(), settings.strangerMessageLimit());
    }

    @PUT
    @Path("/following/{uid}")
    @Operation(operationId = "follow", summary = "Follow a user (follow mode); mutual follows are friends")
    @APIResponse(responseCode = "201", description = "Now following",
            content = @Content(schema = @Schema(implementation = SocialGraph.Relation.class)))
    @APIResponse(responseCode = "200", description = "Following already",
            content = @Content(schema = @Schema(implementation = SocialGraph.Relation.class)))
    @APIResponse(responseCode = "400", description = "invalid-id, self-relation")
    @APIResponse(responseCode = "403", description = "forbidden: the user blocks you")
    @APIResponse(responseCode = "404", description = "not-found: no such active user")
    @APIResponse(responseCode = "409", description = "wrong-social-mode")
    public Response follow(@PathParam("uid") String uid, @Context SecurityContext sc) {
        settings.require(SocialSettings.Mode.FOLLOW);
        boolean created = graph.follow(Caller.id(sc), Ids.parse(uid));
        return Response.status(created ? 201 : 200).entity(graph.relation(Caller.id(sc), Ids.parse(uid))).build();
    }

    @DELETE
    @Path("/following/{uid}")
    @Operation(operationId = "unfollow", summary = "Unfollow (follow mode)")
    @APIResponse(responseCode = "204", description = "Not following (any more)")
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "409", description = "wrong-social-mode")
    public Response unfollow(@PathParam("uid") String uid, @Context SecurityContext sc) {
        settings.require(SocialSettings.Mode.FOLLOW);
        graph.unfollow(Caller.id(sc), Ids.parse(uid));
        return Response.noContent().build();
    }

    @POST
    @Path("/friend-requests")
    @Operation(operationId = "requestFriendship",
            summary = "Ask for a friendship with a message (approval mode); asking someone who asked you makes you friends")
    @APIResponse(responseCode = "201", description = "Asked",
            content = @Content(schema = @Schema(implementation = RequestResult.class)))
    @APIResponse(responseCode = "200", description = "Asked already, or they had asked you: now friends",
            content = @Content(schema = @Schema(implementation = RequestResult.class)))
    @APIResponse(responseCode = "400", description = "invalid-id, self-relation")
    @APIResponse(responseCode = "403", description = "forbidden: the user blocks you")
    @APIResponse(responseCode = "404", description = "not-found: no such active user")
    @APIResponse(responseCode = "409", description = "wrong-social-mode, already-friends")
    public Response requestFriend(@NotNull @Valid FriendRequestBody body, @Context SecurityContext sc) {
        settings.require(SocialSettings.Mode.APPROVAL);
        SocialGraph.RequestOutcome outcome = graph.requestFriend(Caller.id(sc), Ids.parse(body.to()), body.message());
        return Response.status(outcome.created() ? 201 : 200)
                .entity(new RequestResult(FriendRequestView.of(outcome.request()), outcome.friends())).build();
    }

    @GET
    @Path("/friend-requests")
    @Operation(operationId = "listFriendRequests",
            summary = "Your requests: direction=incoming|outgoing, status (default PENDING), newest first, paged by before=")
    @APIResponse(responseCode = "200", description = "A page of requests")
    @APIResponse(responseCode = "400", description = "invalid-direction, invalid-status, invalid-id, invalid-limit")
    public Page<FriendRequestView> requests(@QueryParam("direction") @DefaultValue("incoming") String direction,
                                @QueryParam("status") @DefaultValue("PENDING") String status,
                                @QueryParam("before") String before, @QueryParam("limit") @DefaultValue("50") int limit,
                                @Context SecurityContext sc) {
        return graph.requestPage(Caller.id(sc), direction, status, before == null ? null : Ids.parse(before), limit);
    }

    @POST
    @Path("/friend-requests/{id}/answer")
    @Operation(operationId = "answerFriendRequest",
            summary = "Answer a request addressed to you: accept, reject or ignore, with an optional note")
    @APIResponse(responseCode = "200", description = "The answered request")
    @APIResponse(responseCode = "400", description = "invalid-id, invalid-decision")
    @APIResponse(responseCode = "403", description = "forbidden: only the addressee answers")
    @APIResponse(responseCode = "404", description = "not-found: no such request")
    @APIResponse(responseCode = "409", description = "wrong-social-mode, request-not-pending")
    public FriendRequestView answer(@PathParam("id") String id, @NotNull @Valid AnswerBody body, @Context SecurityContext sc) {
        settings.require(SocialSettings.Mode.APPROVAL);
        return FriendRequestView.of(graph.answer(Caller.id(sc), Ids.parse(id), body.decision(), body.note()));
    }

    @DELETE
    @Path("/friend-requests/{id}")
    @Operation(operationId = "cancelFriendRequest", summary = "Withdraw a pending request you sent")
    @APIResponse(responseCode = "204", description = "Withdrawn")
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "404", description = "not-found: no such request of yours")
    @APIResponse(responseCode = "409", description = "request-not-pending")
    public Response cancel(@PathParam("id") String id, @Context SecurityContext sc) {
        graph.cancelRequest(Caller.id(sc), Ids.parse(id));
        return Response.noContent().build();
    }

    @DELETE
    @Path("/friends/{uid}")
    @Operation(operationId = "removeFriend", summary = "Remove a friend (both directions; nobody is told)")
    @APIResponse(responseCode = "204", description = "Not friends (any more)")
    @APIResponse(responseCode = "400", description = "invalid-id")
    public Response removeFriend(@PathParam("uid") String uid, @Context SecurityContext sc) {
        graph.removeFriend(Caller.id(sc), Ids.parse(uid));
        return Response.noContent().build();
    }

    @PUT
    @Path("/blocks/{uid}")
    @Operation(operationId = "block", summary = "Block a user: they can no longer message you or ask for your friendship")
    @APIResponse(responseCode = "201", description = "Blocked")
    @APIResponse(responseCode = "200", description = "Blocked already")
    @APIResponse(responseCode = "400", description = "invalid-id, self-relation")
    @APIResponse(responseCode = "404", description = "not-found: no such active user")
    public Response block(@PathParam("uid") String uid, @Context SecurityContext sc) {
        return Response.status(graph.block(Caller.id(sc), Ids.parse(uid)) ? 201 : 200).build();
    }

    @DELETE
    @Path("/blocks/{uid}")
    @Operation(operationId = "unblock", summary = "Unblock")
    @APIResponse(responseCode = "204", description = "Not blocked (any more)")
    @APIResponse(responseCode = "400", description = "invalid-id")
    public Response unblock(@PathParam("uid") String uid, @Context SecurityContext sc) {
        graph.unblock(Caller.id(sc), Ids.parse(uid));
        return Response.noContent().build();
    }

    @GET
    @Path("/blocks")
    @Operation(operationId = "listBlocks", summary = "Users you block, paged by after=")
    @APIResponse(responseCode = "200", description = "A page of user ids")
    @APIResponse(responseCode = "400", description = "invalid-id, invalid-limit")
    public Page<String> blocks(@QueryParam("after") String after, @QueryParam("limit") @DefaultValue("100") int limit,
                          @Context SecurityContext sc) {
        return SocialGraph.page(n -> graph.blocked(Caller.id(sc), after == null ? null : Ids.parse(after), n), limit);
    }

    @PUT
    @Path("/permissions/{uid}")
    @Operation(operationId = "setPermission",
            summary = "What you allow a contact: hidePresence (they get no presence of yours), muted")
    @APIResponse(responseCode = "200", description = "The permission")
    @APIResponse(responseCode = "400", description = "invalid-id, self-relation")
    @APIResponse(responseCode = "404", description = "not-found: no such active user")
    public SocialGraph.Permission setPermission(@PathParam("uid") String uid, @NotNull PermissionBody body,
                                                @Context SecurityContext sc) {
        return graph.setPermission(Caller.id(sc), Ids.parse(uid), new SocialGraph.Permission(body.hidePresence(), body.muted()));
    }

    @GET
    @Path("/permissions/{uid}")
    @Operation(operationId = "getPermission", summary = "What you allow a contact")
    @APIResponse(responseCode = "200", description = "The permission (both false if never set)")
    @APIResponse(responseCode = "400", description = "invalid-id")
    public SocialGraph.Permission permission(@PathParam("uid") String uid, @Context SecurityContext sc) {
        return graph.permission(Caller.id(sc), Ids.parse(uid));
    }

    @GET
    @Path("/relations/{uid}")
    @Operation(operationId = "getRelation",
            summary = "How you stand to a user: following, followedBy, friends, blocking, blockedBy")
    @APIResponse(responseCode = "200", description = "The relation")
    @APIResponse(responseCode = "400", description = "invalid-id")
    public SocialGraph.Relation relation(@PathParam("uid") String uid, @Context SecurityContext sc) {
        return graph.relation(Caller.id(sc), Ids.parse(uid));
    }

    @GET
    @Path("/users/{uid}/counts")
    @Operation(operationId = "getFollowCounts", summary = "A user's follower and following counts")
    @APIResponse(responseCode = "200", description = "The counts")
    @APIResponse(responseCode = "400", description = "invalid-id")
    public SocialGraph.Counts counts(@PathParam("uid") String uid, @Context SecurityContext sc) {
        return graph.counts(Caller.user(uid, sc));
    }

    @GET
    @Path("/users/{uid}/followers")
    @Operation(operationId = "listFollowers", summary = "Followers, by id, paged by after=")
    @APIResponse(responseCode = "200", description = "A page of user ids")
    @APIResponse(responseCode = "400", description = "invalid-id, invalid-limit")
    public Page<String> followers(@PathParam("uid") String uid, @QueryParam("after") String after,
                             @QueryParam("limit") @DefaultValue("100") int limit, @Context SecurityContext sc) {
        long u = Caller.user(uid, sc);
        return SocialGraph.page(n -> graph.followers(u, after == null ? null : Ids.parse(after), n), limit);
    }

    @GET
    @Path("/users/{uid}/following")
    @Operation(operationId = "listFollowing", summary = "Whom a user follows, by id, paged by after=")
    @APIResponse(responseCode = "200", description = "A page of user ids")
    @APIResponse(responseCode = "400", description = "invalid-id, invalid-limit")
    public Page<String> following(@PathParam("uid") String uid, @QueryParam("after") String after,
                             @QueryParam("limit") @DefaultValue("100") int limit, @Context SecurityContext sc) {
        long u = Caller.user(uid, sc);
        return SocialGraph.page(n -> graph.following(u, after == null ? null : Ids.parse(after), n), limit);
    }

    @GET
    @Path("/users/me/presence")
    @Operation(operationId = "listContactPresence",
            summary = "Your contacts' presence (friends; those you follow when presence goes to followers), by id, paged by after=",
            description = "The fields of the presence frame; apply later frames only when their version is greater. "
                    + "A contact who hides their presence from you shows offline at version 0.")
    @APIResponse(responseCode = "200", description = "A page of contacts' presence")
    @APIResponse(responseCode = "400", description = "invalid-id, invalid-limit")
    public Page<ContactPresenceView> contactPresence(@QueryParam("after") String after,
                                                     @QueryParam("limit") @DefaultValue("100") int limit, @Context SecurityContext sc) {
        return contactPresence.contactsOf(Caller.id(sc), after == null ? null : Ids.parse(after), limit);
    }

    @GET
    @Path("/users/{uid}/friends")
    @Operation(operationId = "listFriends",
            summary = "Friends (yours, or any user's for admin/service); with=uid keeps only friends in common")
    @APIResponse(responseCode = "200", description = "A page of user ids")
    @APIResponse(responseCode = "400", description = "invalid-id, invalid-limit")
    @APIResponse(responseCode = "403", description = "forbidden: users list only their own friends")
    public Page<String> friends(@PathParam("uid") String uid, @QueryParam("with") String with, @QueryParam("after") String after,
                           @QueryParam("limit") @DefaultValue("100") int limit, @Context SecurityContext sc) {
        long u = Caller.user(uid, sc);
        if (u != Caller.id(sc) && !Caller.actsForOthers(sc)) {
            throw ProblemException.forbidden("Users may list only their own friends.");
        }
        Long w = with == null ? null : Ids.parse(with);
        return SocialGraph.page(n -> graph.friends(u, w, after == null ? null : Ids.parse(after), n), limit);
    }
}
