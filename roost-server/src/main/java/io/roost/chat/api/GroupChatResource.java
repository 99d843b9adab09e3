package io.roost.chat.api;

import io.roost.chat.MessageView.Location;
import io.roost.chat.MessageView.Media;
import io.roost.chat.Sent;
import io.roost.chat.group.GroupChat;
import io.roost.chat.group.GroupMessage;
import io.roost.chat.group.GroupMessageView;
import io.roost.chat.group.GroupSendCommand;
import io.roost.chat.group.GroupStateView;
import io.roost.chat.group.GroupSyncView;
import io.roost.chat.group.ReadersView;
import io.roost.platform.api.Page;
import io.roost.platform.ids.Ids;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.security.Caller;
import io.roost.platform.security.Roles;
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
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * Group chat over REST: sends as a member or as the system, a group's history (keyset-paged both
 * ways) and catch-up with the reader's visibility, a member's cursor and unread state, read
 * reports, read receipts, recall and delete for everyone, a member's own mute. A user reads as
 * itself; back ends ({@code service}) and operators ({@code admin}) read every message of a group.
 */
@Path("/v1/chat/groups")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.ADMIN, Roles.SERVICE, Roles.USER})
@Tag(name = "chat")
public class GroupChatResource {

    @Schema(name = "GroupChatSend", description = "text for text, custom and system; media for image, file, voice; location for location")
    public record SendBody(@Schema(description = "back ends: the member it comes from (required unless a system message); users: absent or themselves")
                           @Size(max = 20) String from,
                           @Schema(required = true, description = "the client's id of this message, unique per sending device; 1-64 of [A-Za-z0-9_.:-]")
                           String sendId,
                           @Schema(required = true, enumeration = {"text", "image", "file", "voice", "video", "location", "custom", "system"}) String type,
                           String text, @Valid Media media, @Valid Location location,
                           @Schema(description = "the msgId of a message of this group it quotes") @Size(max = 20) String quote,
                           @Schema(description = "0-9, default 0") Integer priority,
                           @Schema(description = "members it mentions (uids)") @Size(max = GroupChat.MAX_MENTIONS) List<@Size(max = 20) String> mentions,
                           @Schema(description = "it mentions everyone (owner and admins, or the system)") Boolean mentionAll) {
    }

    public record ReadBody(@NotNull @Schema(description = "everything up to this seq is read", required = true) Long readSeq) {
    }

    public record MuteBody(@NotNull @Schema(required = true) Boolean muted) {
    }

    @Inject
    GroupChat groupChat;

    @POST
    @Path("/{group}/messages")
    @Operation(operationId = "sendGroupMessage",
            summary = "Send a message to a group (201); a resend of the same sendId gets the same answer (200) and writes nothing")
    @APIResponse(responseCode = "201", description = "Stored (committed)",
            content = @Content(schema = @Schema(implementation = ChatResource.SentView.class)))
    @APIResponse(responseCode = "200", description = "A resend: the stored answer",
            content = @Content(schema = @Schema(implementation = ChatResource.SentView.class)))
    @APIResponse(responseCode = "400", description = "invalid-send-id, invalid-type, invalid-body, invalid-priority, invalid-quote,"
            + " invalid-mention, invalid-id, from-required, validation-failed")
    @APIResponse(responseCode = "403", description = "not-member, role-cannot-send (R in a chat group, W or R in a channel), muted,"
            + " mention-all-forbidden; forbidden: sending as another user, or a system message from a user")
    @APIResponse(responseCode = "404", description = "not-found: no such group (or a hidden one you are not in)")
    @APIResponse(responseCode = "409", description = "send-id-conflict, group-dissolved")
    @APIResponse(responseCode = "413", description = "body-too-large: over ROOST_CHAT_MAX_BODY_BYTES")
    @APIResponse(responseCode = "422", description = "content-rejected: the content filter refused it")
    @APIResponse(responseCode = "503", description = "service-unavailable: send again later, with the same sendId")
    public Response send(@PathParam("group") String group, @NotNull @Valid SendBody b, @Context SecurityContext sc) {
        long caller = Caller.id(sc);
        boolean system = "system".equals(b.type());
        long from;
        String deviceKey;
        if (Caller.actsForOthers(sc)) {
            if (b.from() == null && !system) {
                throw ProblemException.badRequest("from-required", "A back end names the member a message comes from (from).");
            }
            from = b.from() == null ? caller : Ids.parse(b.from());
            deviceKey = (system ? "system:" : "svc:") + caller;
        } else {
            from = b.from() == null ? caller : Caller.user(b.from(), sc);
            if (from != caller) {
                throw ProblemException.forbidden("You send messages as yourself only.");
            }
            deviceKey = "rest";
        }
        List<Long> mentions = b.mentions() == null ? List.of() : b.mentions().stream().map(Ids::parse).toList();
        Sent sent = groupChat.send(new GroupSendCommand(from, Ids.parse(group), deviceKey, b.sendId(), b.type(),
                ChatResource.body(b.type(), b.text(), b.media(), b.location()), b.quote() == null ? null : Ids.parse(b.quote()),
                b.priority() == null ? 0 : b.priority(), mentions, Boolean.TRUE.equals(b.mentionAll()), system));
        return Response.status(sent.resent() ? 200 : 201).entity(ChatResource.SentView.of(sent)).build();
    }

    @GET
    @Path("/{group}/messages")
    @Operation(operationId = "listGroupMessages",
            summary = "A group's messages the caller may see, in seq order: after=seq (newer; next: the last seq) or before=seq /"
                    + " neither (older or the newest; next: the first seq)")
    @APIResponse(responseCode = "200", description = "A page of messages")
    @APIResponse(responseCode = "400", description = "invalid-id, invalid-cursor, invalid-limit, one-cursor, cursor-past-end")
    @APIResponse(responseCode = "404", description = "not-found: no such group, or none you were ever a member of")
    public Page<GroupMessageView> messages(@PathParam("group") String group, @QueryParam("after") String after,
                                           @QueryParam("before") String before, @QueryParam("limit") @DefaultValue("50") int limit,
                                           @Context SecurityContext sc) {
        Page<GroupMessage> page = groupChat.messages(Caller.id(sc), Caller.actsForOthers(sc), Ids.parse(group),
                after == null ? null : ChatResource.cursor(after), before == null ? null : ChatResource.cursor(before), limit);
        return new Page<>(page.items().stream().map(GroupMessageView::of).toList(), page.next());
    }

    @GET
    @Path("/{group}/sync")
    @Operation(operationId = "syncGroup",
            summary = "Catch-up after the highest seq the device holds without a gap: the newest messages after it (at most limit),"
                    + " and a gap marker when more are missing")
    @APIResponse(responseCode = "200", description = "The catch-up")
    @APIResponse(responseCode = "400", description = "invalid-id, invalid-cursor, invalid-limit, cursor-past-end")
    @APIResponse(responseCode = "404", description = "not-found: no such group, or none you were ever a member of")
    public GroupSyncView sync(@PathParam("group") String group, @QueryParam("after") String after,
                              @QueryParam("limit") @DefaultValue("100") int limit, @Context SecurityContext sc) {
        return GroupSyncView.of(groupChat.sync(Caller.id(sc), Ids.parse(group), after == null ? 0 : ChatResource.cursor(after), limit));
    }

    @GET
    @Path("/{group}/members/{uid}/state")
    @Operation(operationId = "groupMemberState", summary = "A member's cursor and unread state in a group (yours; back ends: anyone's)")
    @APIResponse(responseCode = "200", description = "The state")
    @APIResponse(responseCode = "403", description = "forbidden: your own state only")
    @APIResponse(responseCode = "404", description = "not-found: no such group, or the user was never a member")
    public GroupStateView state(@PathParam("group") String group, @PathParam("uid") String uid, @Context SecurityContext sc) {
        return groupChat.state(ChatResource.owner(uid, sc), Ids.parse(group));
    }

    @POST
    @Path("/{group}/members/{uid}/read")
    @Operation(operationId = "readGroup", summary = "Report that a member read everything up to readSeq (its cursor only moves forward)")
    @APIResponse(responseCode = "200", description = "The state after")
    @APIResponse(responseCode = "400", description = "invalid-seq, cursor-past-end")
    @APIResponse(responseCode = "403", description = "forbidden: your own cursor only")
    @APIResponse(responseCode = "404", description = "not-found: no such group, or the user was never a member")
    public GroupStateView read(@PathParam("group") String group, @PathParam("uid") String uid, @NotNull @Valid ReadBody b,
                               @Context SecurityContext sc) {
        return groupChat.read(ChatResource.owner(uid, sc), Ids.parse(group), b.readSeq());
    }

    @PUT
    @Path("/{group}/members/{uid}/mute")
    @Operation(operationId = "muteGroupForMember", summary = "A member mutes the group for itself: no pushes but mentions; still unread")
    @APIResponse(responseCode = "204", description = "Done")
    @APIResponse(responseCode = "403", description = "forbidden: your own mute only")
    @APIResponse(responseCode = "404", description = "not-found: no such group, or the user is not a member")
    public Response mute(@PathParam("group") String group, @PathParam("uid") String uid, @NotNull @Valid MuteBody b,
                         @Context SecurityContext sc) {
        groupChat.setMuted(ChatResource.owner(uid, sc), Ids.parse(group), b.muted());
        return Response.noContent().build();
    }

    @GET
    @Path("/{group}/messages/{seq}/readers")
    @Operation(operationId = "groupMessageReaders",
            summary = "Who read a message (groups of at most ROOST_GROUP_RECEIPTS_MAX_MEMBERS): how many, and a page of uids")
    @APIResponse(responseCode = "200", description = "The readers")
    @APIResponse(responseCode = "404", description = "not-found: no such group or message you may see")
    @APIResponse(responseCode = "409", description = "receipts-unavailable: the group is larger")
    public ReadersView readers(@PathParam("group") String group, @PathParam("seq") String seq, @QueryParam("after") String after,
                               @QueryParam("limit") @DefaultValue("50") int limit, @Context SecurityContext sc) {
        return groupChat.readers(Caller.id(sc), Caller.actsForOthers(sc), Ids.parse(group), ChatResource.cursor(seq),
                after == null ? null : Ids.parse(after), limit);
    }

    @POST
    @Path("/{group}/messages/{seq}/recall")
    @Operation(operationId = "recallGroupMessage",
            summary = "Recall a message: its sender within ROOST_CHAT_RECALL_WINDOW; the owner and admins (and operators) any, at any age")
    @APIResponse(responseCode = "200", description = "The message as it now is (no content)")
    @APIResponse(responseCode = "403", description = "not-sender")
    @APIResponse(responseCode = "404", description = "not-found")
    @APIResponse(responseCode = "409", description = "recall-window-passed")
    public GroupMessageView recall(@PathParam("group") String group, @PathParam("seq") String seq, @Context SecurityContext sc) {
        return GroupMessageView.of(groupChat.recall(Caller.id(sc), Caller.actsForOthers(sc), Ids.parse(group), ChatResource.cursor(seq)));
    }

    @DELETE
    @Path("/{group}/messages/{seq}")
    @Operation(operationId = "deleteGroupMessage", summary = "Delete a message for everyone (the owner and admins, and operators)")
    @APIResponse(responseCode = "200", description = "The message as it now is (no content)")
    @APIResponse(responseCode = "403", description = "forbidden")
    @APIResponse(responseCode = "404", description = "not-found")
    public GroupMessageView delete(@PathParam("group") String group, @PathParam("seq") String seq, @Context SecurityContext sc) {
        return GroupMessageView.of(groupChat.delete(Caller.id(sc), Caller.actsForOthers(sc), Ids.parse(group), ChatResource.cursor(seq)));
    }
}
