package io.roost.presence.api;

import io.roost.platform.problem.ProblemException;
import io.roost.platform.security.Roles;
import io.roost.presence.RtcPresence;
import io.roost.presence.rtc.RtcIngestor;
import io.roost.presence.session.DeviceSessions;
import io.roost.presence.store.RouteStore;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ejb.EJB;
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
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Where a user is: device sessions (the route table) and RTC channels; and this node's webhook counters. */
@Path("/v1/presence")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.ADMIN, Roles.SERVICE})
@Tag(name = "presence")
public class UserPresenceResource {

    public record Device(String deviceType, String deviceId, int node, OffsetDateTime since, OffsetDateTime lastHeartbeat) {
    }

    public record UserPresence(String uid, boolean online, List<Device> devices) {
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
    @Operation(summary = "Online if at least one device session is live; the devices with node and last heartbeat")
    public UserPresence user(@PathParam("uid") String uid) {
        long id = parse(uid);
        return view(uid, sessions.routesOf(id));
    }

    @POST
    @Path("/users:query")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Presence of up to 1000 users in one round trip")
    public QueryResult query(@NotNull @jakarta.validation.Valid Query query) {
        Map<Long, String> ids = new LinkedHashMap<>();
        query.uids().forEach(u -> ids.put(parse(u), u));
        List<RouteStore.Route> routes = sessions.routesOf(List.copyOf(ids.keySet()));
        return new QueryResult(ids.entrySet().stream()
                .map(e -> view(e.getValue(), routes.stream().filter(r -> r.uid() == e.getKey()).toList()))
                .toList());
    }

    public record UserChannels(long uid, List<RtcPresence.Member> channels) {
    }

    @GET
    @Path("/users/{uid}/channels")
    @Operation(summary = "The RTC channels a uid is online in now")
    public UserChannels channelsOf(@PathParam("uid") String uid) {
        long id = parse(uid);
        return new UserChannels(id, rtc.channelsOf(id));
    }

    @GET
    @Path("/rtc/stats")
    @Operation(summary = "Webhook ingestion counters of this node (received, duplicates skipped, unknown types, batches)")
    public RtcIngestor.Stats rtcStats() {
        return ingestor.stats();
    }

    private static UserPresence view(String uid, List<RouteStore.Route> routes) {
        return new UserPresence(uid, !routes.isEmpty(), routes.stream()
                .map(r -> new Device(r.deviceType(), r.deviceId(), r.nodeId(), r.loginAt(), r.lastHeartbeatAt()))
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
