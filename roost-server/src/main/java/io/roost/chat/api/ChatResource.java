package io.roost.chat.api;

import io.roost.chat.ChatMessage;
import io.roost.chat.ChatService;
import io.roost.chat.ChatUserSettings;
import io.roost.chat.Conversation;
import io.roost.chat.ReadState;
import io.roost.chat.ConversationView;
import io.roost.chat.MessageView;
import io.roost.chat.MessageView.Location;
import io.roost.chat.MessageView.Media;
import io.roost.chat.SendCommand;
import io.roost.chat.Sent;
import io.roost.chat.SyncView;
import io.roost.platform.api.Page;
import io.roost.platform.ids.Ids;
import io.roost.platform.json.Jsonp;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.security.Caller;
import io.roost.platform.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
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
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * One-to-one chat over REST: users send as themselves and read their own conversations; back ends
 * (service, admin) send on behalf of a user ({@code from}) or as the system, and read anyone's.
 */
@Path("/v1/chat")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.ADMIN, Roles.SERVICE, Roles.USER})
@Tag(name = "chat")
public class ChatResource {

    @Schema(name = "ChatSend", description = "text for text, custom and system; media for image, file, voice; location for location")
    public record SendBody(@NotNull @Size(max = 20) String peer,
                           @Schema(description = "back ends: the user it comes from (required); users: absent or themselves")
                           @Size(max = 20) String from,
                           @Schema(required = true, description = "the client's id of this message, unique per sending device; 1-64 of [A-Za-z0-9_.:-]")
                           String sendId,
                           @Schema(required = true, enumeration = {"text", "image", "file", "voice", "video", "location", "custom", "system"})
                           String type,
                           String text, @Valid Media media, @Valid Location location,
                           @Schema(description = "the msgId of a message of this conversation it quotes") @Size(max = 20) String quote,
                           @Schema(description = "0-9, default 0") Integer priority) {
    }

    @Schema(name = "ChatSent", description = "The answer to a send, given after commit")
    public record SentView(String sendId, String msgId, long seq, @Schema(description = "the message's time, epoch milliseconds") long tm) {
        static SentView of(Sent s) {
            return new SentView(s.sendId(), Long.toString(s.msgId()), s.seq(), s.tm().toInstant().toEpochMilli());
        }
    }

    @Inject
    ChatService chat;

    @POST
    @Path("/messages")
    @Operation(operationId = "sendChatMessage",
            summary = "Send a one-to-one message (201); a resend of the same sendId gets the same answer (200) and writes nothing")
    @APIResponse(responseCode = "201", description = "Stored in both timelines (committed)",
            content = @Content(schema = @Schema(implementation = SentView.class)))
    @APIResponse(responseCode = "200", description = "A resend: the stored answer",
            content = @Content(schema = @Schema(implementation = SentView.class)))
    @APIResponse(responseCode = "400", description = "invalid-send-id, invalid-type, invalid-body, invalid-priority, invalid-quote,"
            + " invalid-id, self-message, from-required, validation-failed")
    @APIResponse(responseCode = "403", description = "blocked: one side blocks the other; stranger-limit: in follow mode, the"
            + " messages a stranger may send until followed back are used up; forbidden: sending as another user, or a system"
            + " message from a user")
    @APIResponse(responseCode = "404", description = "not-found: no such active user (recipient or from)")
    @APIResponse(responseCode = "409", description = "send-id-conflict: this sendId was used for another message")
    @APIResponse(responseCode = "413", description = "body-too-large: over ROOST_CHAT_MAX_BODY_BYTES")
    @APIResponse(responseCode = "422", description = "content-rejected: the content filter refused it")
    @APIResponse(responseCode = "503", description = "service-unavailable: too many messages wait to be stored, or the database is"
            + " out of reach (then with Retry-After); send again later, with the same sendId")
    public Response send(@NotNull @Valid SendBody b, @Context SecurityContext sc) {
        long caller = Caller.id(sc);
        boolean backEnd = Caller.actsForOthers(sc);
        long from;
        String deviceKey;
        boolean system = false;
        if (backEnd) {
            if (b.from() == null) {
                throw ProblemException.badRequest("from-required", "A back end names the user a message comes from (from).");
            }
            from = Ids.parse(b.from());
            system = "system".equals(b.type());
            deviceKey = (system ? "system:" : "svc:") + caller;
        } else {
            from = b.from() == null ? caller : Caller.user(b.from(), sc);
            if (from != caller) {
                throw ProblemException.forbidden("You send messages as yourself only.");
            }
            deviceKey = "rest";
        }
        Sent sent = chat.send(new SendCommand(from, Ids.parse(b.peer()), deviceKey, b.sendId(), b.type(), body(b),
                b.quote() == null ? null : Ids.parse(b.quote()), b.priority() == null ? 0 : b.priority(), system));
        return Response.status(sent.resent() ? 200 : 201).entity(SentView.of(sent)).build();
    }

    @GET
    @Path("/users/{uid}/conversations")
    @Operation(operationId = "listChatConversations",
            summary = "A user's conversations changed after sync version since (0: all), in version order; next is the version to continue from")
    @APIResponse(responseCode = "200", description = "A page of conversations")
    @APIResponse(responseCode = "400", description = "invalid-id, invalid-cursor, invalid-limit")
    @APIResponse(responseCode = "403", description = "forbidden: your own conversations only (back ends: anyone's)")
    public Page<ConversationView> conversations(@PathParam("uid") String uid, @QueryParam("since") String since,
                                                @QueryParam("limit") @DefaultValue("50") int limit, @Context SecurityContext sc) {
        long owner = owner(uid, sc);
        return chat.conversationList(owner, since == null ? 0 : cursor(since), limit);
    }

    @GET
    @Path("/users/{uid}/conversations/{peer}/messages")
    @Operation(operationId = "listChatMessages",
            summary = "A conversation's messages in seq order: after=seq (newer, next: the last seq) or before=seq / neither (older or"
                    + " the newest, next: the first seq); deleted ones as tombstones")
    @APIResponse(responseCode = "200", description = "A page of messages")
    @APIResponse(responseCode = "400", description = "invalid-id, invalid-cursor, one-cursor, invalid-limit")
    @APIResponse(responseCode = "403", description = "forbidden: your own conversations only (back ends: anyone's)")
    public Page<MessageView> messages(@PathParam("uid") String uid, @PathParam("peer") String peer, @QueryParam("after") String after,
                                      @QueryParam("before") String before, @QueryParam("limit") @DefaultValue("50") int limit,
                                      @Context SecurityContext sc) {
        long owner = owner(uid, sc);
        Page<ChatMessage> page = chat.messages(owner, Ids.parse(peer), after == null ? null : cursor(after),
                before == null ? null : cursor(before), limit);
        return new Page<>(page.items().stream().map(MessageView::of).toList(), page.next());
    }

    @DELETE
    @Path("/users/{uid}/conversations/{peer}/messages/{seq}")
    @Operation(operationId = "deleteChatMessageForMe",
            summary = "Delete a message from this user's timeline only; it stays as a tombstone, the peer keeps theirs")
    @APIResponse(responseCode = "204", description = "Deleted (also if it was already)")
    @APIResponse(responseCode = "400", description = "invalid-id, invalid-cursor")
    @APIResponse(responseCode = "403", description = "forbidden: your own conversations only (back ends: anyone's)")
    @APIResponse(responseCode = "404", description = "not-found: no such message in this conversation")
    public Response deleteForMe(@PathParam("uid") String uid, @PathParam("peer") String peer, @PathParam("seq") String seq,
                                @Context SecurityContext sc) {
        chat.deleteForMe(owner(uid, sc), Ids.parse(peer), cursor(seq));
        return Response.noContent().build();
    }

    /** A read report. */
    public record ReadBody(@NotNull @Schema(description = "everything up to this seq is read", required = true) Long readSeq) {
    }

    /** The reader's side after a read report. */
    public record ReadView(String peer, long readSeq, int unread) {
    }

    @POST
    @Path("/users/{uid}/conversations/{peer}/read")
    @Operation(operationId = "markChatRead",
            summary = "Everything of the conversation up to readSeq is read (for all of the user's devices); the peer gets a read"
                    + " receipt unless the user turned them off")
    @APIResponse(responseCode = "200", description = "The reader's read cursor and unread count after the report",
            content = @Content(schema = @Schema(implementation = ReadView.class)))
    @APIResponse(responseCode = "400", description = "invalid-id, invalid-seq")
    @APIResponse(responseCode = "403", description = "forbidden: your own conversations only (back ends: anyone's)")
    @APIResponse(responseCode = "404", description = "not-found: no such conversation")
    @APIResponse(responseCode = "503", description = "service-unavailable: too many read reports wait, or the database is out of"
            + " reach (then with Retry-After); report again later")
    public ReadView read(@PathParam("uid") String uid, @PathParam("peer") String peer, @NotNull @Valid ReadBody b,
                         @Context SecurityContext sc) {
        long peerUid = Ids.parse(peer);
        ReadState state = chat.read(owner(uid, sc), peerUid, b.readSeq());
        return new ReadView(Long.toString(peerUid), state.readSeq(), state.unread());
    }

    @GET
    @Path("/users/{uid}/conversations/{peer}/sync")
    @Operation(operationId = "syncChatMessages",
            summary = "Catch up after the last seq a device holds: the newest limit messages after it, ascending, and a gap marker"
                    + " when they do not start right after it (not-loaded: page back with messages?before=beforeSeq; purged: gone)")
    @APIResponse(responseCode = "200", description = "The newest messages after the seq and the gap before them, if any",
            content = @Content(schema = @Schema(implementation = SyncView.class)))
    @APIResponse(responseCode = "400", description = "invalid-id, invalid-cursor, invalid-limit")
    @APIResponse(responseCode = "403", description = "forbidden: your own conversations only (back ends: anyone's)")
    public SyncView sync(@PathParam("uid") String uid, @PathParam("peer") String peer, @QueryParam("after") String after,
                         @QueryParam("limit") @DefaultValue("100") int limit, @Context SecurityContext sc) {
        return SyncView.of(chat.sync(owner(uid, sc), Ids.parse(peer), after == null ? 0 : cursor(after), limit));
    }

    @POST
    @Path("/users/{uid}/conversations/{peer}/messages/{seq}/recall")
    @Operation(operationId = "recallChatMessage",
            summary = "The sender recalls their message within ROOST_CHAT_RECALL_WINDOW: both timelines keep it, recalled, without"
                    + " content; both sides' devices get chatRecall. Recalling it again gets the same answer")
    @APIResponse(responseCode = "200", description = "The recalled message (committed)",
            content = @Content(schema = @Schema(implementation = MessageView.class)))
    @APIResponse(responseCode = "400", description = "invalid-id, invalid-cursor")
    @APIResponse(responseCode = "403", description = "not-sender: not this user's own message (a system message is nobody's);"
            + " forbidden: your own messages only (back ends: on a user's behalf, same rules)")
    @APIResponse(responseCode = "404", description = "not-found: no such message in this conversation")
    @APIResponse(responseCode = "409", description = "recall-window-passed: sent longer ago than ROOST_CHAT_RECALL_WINDOW")
    public MessageView recall(@PathParam("uid") String uid, @PathParam("peer") String peer, @PathParam("seq") String seq,
                              @Context SecurityContext sc) {
        long sender = Caller.requireSelfOrOperator(Caller.user(uid, sc), sc, "You may only recall your own messages.");
        // on a user's behalf the user's rules apply, and the recall names who did it: the back end or operator
        return MessageView.of(chat.recall(sender, Ids.parse(peer), cursor(seq), Caller.id(sc)));
    }

    @Schema(name = "ChatUserSettingsChange", description = "The settings to change; an absent one stays as it is")
    public record SettingsBody(Boolean readReceipts, @Schema(enumeration = {"full", "sender", "none"}) String pushPreview) {
    }

    @GET
    @Path("/users/{uid}/settings")
    @Operation(operationId = "getChatSettings",
            summary = "A user's chat settings: read receipts for their peers, how much an offline push shows (defaults if never set)")
    @APIResponse(responseCode = "200", description = "The settings",
            content = @Content(schema = @Schema(implementation = ChatUserSettings.class)))
    @APIResponse(responseCode = "400", description = "invalid-id")
    @APIResponse(responseCode = "403", description = "forbidden: your own settings only (back ends: anyone's)")
    public ChatUserSettings settings(@PathParam("uid") String uid, @Context SecurityContext sc) {
        return chat.settings(Caller.requireSelfOrOperator(Caller.user(uid, sc), sc, "You may only read your own settings."));
    }

    @PUT
    @Path("/users/{uid}/settings")
    @Operation(operationId = "updateChatSettings",
            summary = "Change a user's chat settings: readReceipts (true: peers see when they read), pushPreview (full, sender,"
                    + " none); an absent field stays as it is")
    @APIResponse(responseCode = "200", description = "The settings as they now are",
            content = @Content(schema = @Schema(implementation = ChatUserSettings.class)))
    @APIResponse(responseCode = "400", description = "invalid-push-preview, invalid-id, malformed-json")
    @APIResponse(responseCode = "403", description = "forbidden: your own settings only (back ends: anyone's)")
    @APIResponse(responseCode = "404", description = "not-found: no such active user")
    public ChatUserSettings updateSettings(@PathParam("uid") String uid, @NotNull SettingsBody b, @Context SecurityContext sc) {
        long user = Caller.requireSelfOrOperator(Caller.user(uid, sc), sc, "You may only change your own settings.");
        return chat.updateSettings(user, b.readReceipts(), b.pushPreview());
    }

    static long owner(String uid, SecurityContext sc) {
        return Caller.requireSelfOrOperator(Caller.user(uid, sc), sc, "You may only read your own conversations.");
    }

    static long cursor(String value) {
        try {
            long v = Long.parseLong(value);
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw ProblemException.badRequest("invalid-cursor", "'" + value + "' is not a sequence number or version (an integer ≥ 0).");
    }

    /** The body the service stores for the type: {"text"}, {"media"} or {"location"}; what the type needs is checked there. */
    private static JsonObject body(SendBody b) {
        return body(b.type(), b.text(), b.media(), b.location());
    }

    /** The body for a message's type from a REST send's parts (one-to-one and group sends alike). */
    static JsonObject body(String messageType, String text, Media media, Location location) {
        JsonObjectBuilder o = Jsonp.PROVIDER.createObjectBuilder();
        String type = messageType == null ? "" : messageType;
        switch (type) {
            case "image", "file", "voice", "video" -> {
                if (media != null) {
                    Media m = media;
                    JsonObjectBuilder j = Jsonp.PROVIDER.createObjectBuilder();
                    put(j, "id", m.id());
                    put(j, "url", m.url());
                    put(j, "size", m.size());
                    put(j, "mime", m.mime());
                    put(j, "width", m.width() == null ? null : m.width().longValue());
                    put(j, "height", m.height() == null ? null : m.height().longValue());
                    put(j, "duration", m.duration());
                    put(j, "name", m.name());
                    put(j, "thumbnail", m.thumbnail()); // the server's to fill: refused in a send
                    if (m.external() != null) {
                        j.add("external", m.external());
                    }
                    if (m.removed() != null) {
                        j.add("removed", m.removed()); // the server's to say: refused in a send
                    }
                    o.add("media", j);
                }
            }
            case "location" -> {
                if (location != null) {
                    JsonObjectBuilder j = Jsonp.PROVIDER.createObjectBuilder();
                    if (location.lat() != null) {
                        j.add("lat", location.lat());
                    }
                    if (location.lon() != null) {
                        j.add("lon", location.lon());
                    }
                    put(j, "title", location.title());
                    o.add("location", j);
                }
            }
            default -> put(o, "text", text);
        }
        return o.build();
    }

    private static void put(JsonObjectBuilder j, String name, Object value) {
        if (value instanceof String s) {
            j.add(name, s);
        } else if (value instanceof Long l) {
            j.add(name, l);
        }
    }
}
