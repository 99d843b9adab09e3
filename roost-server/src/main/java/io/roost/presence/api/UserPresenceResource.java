package io.roost.presence.api;

import io.roost.presence.session.DeviceRoute;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.security.Roles;
import io.roost.presence.RtcPresence;
import io.roost.presence.rtc.RtcIngestor;
import io.roost.presence.session.DeviceSessions;
import io.roost.presence.session.LoginLogEntry;
import io.roost.presence.session.OnlineDevice;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.EJB;
import jakarta.ws.rs.QueryParam;
import jakarta.inject.Inject;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Where a user is: device sessions (the route table) and RTC channels; and this node's webhook counters. */
@Path("/v1/presence")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.ADMIN, Roles.SERVICE})
@Tag(name = "presence")
@APIResponse(responseCode = "403", description = "forbidden: operators and back ends (admin, service) only")
public class UserPresenceResource {

    public record UserPresence(String uid, boolean online, List<OnlineDevice> devices) {
    }

    public record Query(@NotNull @Size(min = 1, max = 1000) List<String> uids) {
    }

    public record QueryResult(List<UserPresence> users) {
    }

    @Inject
    DeviceSessions sessions;

    @Inject
    RtcPresence rtc;

    @EJB
    RtcIngestor ingestor;

    @GET
    @Path("/users/{uid}")
    @Operation(operationId = "getUserPresence",
            summary = "Online if at least one device session is live; the devices with node and last heartbeat")
    @APIResponse(responseCode = "200", description = "The presence")
    @APIResponse(responseCode = "400", description = "invalid-parameter")
    public UserPresence user(@PathParam("uid") String uid) {
        long id = parse(uid);
        return view(uid, sessions.routesOf(id));
    }

    @POST
    @Path("/users:query")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "queryUserPresence", summary = "Presence of up to 1000 users in one round trip")
    @APIResponse(responseCode = "200", description = "The presence of each, in the order asked")
    @APIResponse(responseCode = "400", description = "invalid-parameter")
    public QueryResult query(@NotNull @jakarta.validation.Valid Query query) {
        Map<Long, String> ids = new LinkedHashMap<>();
        query.uids().forEach(u -> ids.put(parse(u), u));
        List<DeviceRoute> routes = sessions.routesOf(List.copyOf(ids.keySet()));
        return new QueryResult(ids.entrySet().stream()
                .map(e -> view(e.getValue(), routes.stream().filter(r -> r.uid() == e.getKey()).toList()))
                .toList());
    }

    public record UserChannels(long uid, List<RtcPresence.Member> channels) {
    }

    @GET
    @Path("/users/{uid}/channels")
    @Operation(operationId = "getUserChannels", summary = "The RTC channels a uid is online in now")
    @APIResponse(responseCode = "200", description = "The channels")
    @APIResponse(responseCode = "400", description = "invalid-parameter")
    public UserChannels channelsOf(@PathParam("uid") String uid) {
        long id = parse(uid);
        return new UserChannels(id, rtc.channelsOf(id));
    }

    @GET
    @Path("/users/{uid}/logins")
    @Operation(operationId = "listUserLogins",
            summary = "The user's recent logins, logouts, kicks and timeouts (login log), newest first")
    @APIResponse(responseCode = "200", description = "The entries, newest first")
    @APIResponse(responseCode = "400", description = "invalid-parameter")
    public List<LoginLogEntry> logins(@PathParam("uid") String uid, @QueryParam("limit") Integer limit) {
        return sessions.loginLog(parse(uid), RtcPresenceResource.limit(limit, 50, 1000));
    }

    @GET
    @Path("/rtc/stats")
    @Operation(operationId = "getRtcIngestStats",
            summary = "Webhook ingestion counters of this node (received, duplicates skipped, unknown types, batches)")
    @APIResponse(responseCode = "200", description = "The counters")
    public RtcIngestor.Stats rtcStats() {
        return ingestor.stats();
    }

    private static UserPresence view(String uid, List<DeviceRoute> routes) {
        return new UserPresence(uid, !routes.isEmpty(), routes.stream()
                .map(OnlineDevice::of)
                .toList());
    }

    private static long parse(String uid) {
        try {
            return Long.parseLong(uid);
        } catch (NumberFormatException | NullPointerException e) {
            throw ProblemException.badRequest("invalid-parameter", "uid must be an integer: " + uid);
        }
    }
}
