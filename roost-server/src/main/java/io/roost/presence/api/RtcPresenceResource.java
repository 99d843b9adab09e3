package io.roost.presence.api;

import io.roost.platform.problem.ProblemException;
import io.roost.platform.security.Roles;
import io.roost.presence.RtcPresence;
import io.roost.presence.rtc.RtcRole;
import io.roost.presence.store.RtcKickStore;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.EJB;
import jakarta.inject.Inject;
import jakarta.json.bind.annotation.JsonbNillable;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.Locale;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Read API of RTC channel presence, for operators and enterprise back ends. */
@Path("/v1/presence/channels")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.ADMIN, Roles.SERVICE})
@Tag(name = "presence")
@APIResponse(responseCode = "403", description = "forbidden: operators and back ends (admin, service) only")
public class RtcPresenceResource {

    static final int MAX_CHANNEL_PAGE = 1_000;
    static final int MAX_MEMBER_PAGE = 10_000;

    @JsonbNillable
    public record ChannelPage(List<RtcPresence.Channel> channels, String nextCursor) {
    }

    @JsonbNillable
    public record MemberPage(String channelName, List<RtcPresence.Member> members, String nextCursor) {
    }

    public record KickList(String channelName, List<RtcKickStore.Kick> kicks) {
    }

    @Inject
    RtcPresence presence;

    @EJB
    RtcKickStore kicks;

    @GET
    @Operation(operationId = "listChannels",
            summary = "Channels with online counts per role, in name order (keyset paging by cursor)")
    @APIResponse(responseCode = "200", description = "A page of channels")
    @APIResponse(responseCode = "400", description = "invalid-parameter")
    public ChannelPage channels(@QueryParam("cursor") String cursor, @QueryParam("limit") Integer limit) {
        int n = limit(limit, 100, MAX_CHANNEL_PAGE);
        List<RtcPresence.Channel> page = presence.channels(cursor, n);
        return new ChannelPage(page, page.size() == n ? page.get(n - 1).channelName() : null);
    }

    @GET
    @Path("/{channelName}")
    @Operation(operationId = "getChannel", summary = "One channel: online counts per role and lifecycle")
    @APIResponse(responseCode = "200", description = "The channel")
    @APIResponse(responseCode = "404", description = "not-found: no such channel")
    public RtcPresence.Channel channel(@PathParam("channelName") String channelName) {
        return presence.channel(channelName)
                .orElseThrow(() -> ProblemException.notFound("No channel '" + channelName + "' is known"));
    }

    @GET
    @Path("/{channelName}/members")
    @Operation(operationId = "listChannelMembers",
            summary = "Members of a channel by uid (keyset paging by cursor = last uid), filtered by online and role")
    @APIResponse(responseCode = "200", description = "A page of members")
    @APIResponse(responseCode = "400", description = "invalid-parameter")
    public MemberPage members(@PathParam("channelName") String channelName, @QueryParam("online") String online,
                              @QueryParam("role") String role, @QueryParam("cursor") String cursor,
                              @QueryParam("limit") Integer limit) {
        int n = limit(limit, 100, MAX_MEMBER_PAGE);
        long after = -1;
        if (cursor != null && !cursor.isBlank()) {
            try {
                after = Long.parseLong(cursor.trim());
            } catch (NumberFormatException e) {
                throw ProblemException.badRequest("invalid-parameter", "cursor must be the uid from nextCursor");
            }
        }
        List<RtcPresence.Member> page = presence.members(channelName, bool(online), role(role), after, n);
        return new MemberPage(channelName, page, page.size() == n ? Long.toString(page.get(n - 1).uid()) : null);
    }

    @GET
    @Path("/{channelName}/kicks")
    @Operation(operationId = "listChannelKicks",
            summary = "Kicks of abnormal (reason 999) users in a channel, newest first, with their outcome")
    @APIResponse(responseCode = "200", description = "The kicks")
    @APIResponse(responseCode = "400", description = "invalid-parameter")
    public KickList kicks(@PathParam("channelName") String channelName, @QueryParam("limit") Integer limit) {
        return new KickList(channelName, kicks.forChannel(channelName, limit(limit, 100, 1000)));
    }

    static int limit(Integer requested, int defaultLimit, int max) {
        if (requested == null) {
            return defaultLimit;
        }
        if (requested < 1 || requested > max) {
            throw ProblemException.badRequest("invalid-parameter", "limit must be between 1 and " + max);
        }
        return requested;
    }

    static Boolean bool(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw ProblemException.badRequest("invalid-parameter", "online must be true or false");
        };
    }

    private static RtcRole role(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return RtcRole.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw ProblemException.badRequest("invalid-parameter", "role must be BROADCASTER, AUDIENCE or COMMUNICATION");
        }
    }
}
