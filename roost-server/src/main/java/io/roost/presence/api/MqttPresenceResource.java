package io.roost.presence.api;

import io.roost.platform.json.Jsonp;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.security.Roles;
import io.roost.presence.MqttPresence;
import io.roost.presence.mqtt.MqttIngest;
import io.roost.presence.mqtt.MqttStatusEvent;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.json.bind.annotation.JsonbNillable;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** MQTT client presence: queries, and the HTTP bridge for MQTT services that cannot reach RocketMQ. */
@Path("/v1/presence/mqtt")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.ADMIN, Roles.SERVICE})
@Tag(name = "presence")
@APIResponse(responseCode = "403", description = "forbidden: operators and back ends (admin, service) only")
public class MqttPresenceResource {

    static final int MAX_EVENTS_PER_POST = 1_000;

    @JsonbNillable
    public record ClientPage(List<MqttPresence.ClientSummary> clients, String nextCursor) {
    }

    public record History(String clientId, long from, long to, List<MqttPresence.Event> events) {
    }

    @Inject
    MqttPresence presence;

    @Inject
    MqttIngest ingest;

    @GET
    @Path("/clients/{clientId}")
    @Operation(operationId = "getMqttClient", summary = "A client's state and its connections (open, closed, superseded)")
    @APIResponse(responseCode = "200", description = "The client")
    @APIResponse(responseCode = "404", description = "not-found: no such client")
    public MqttPresence.Client client(@PathParam("clientId") String clientId) {
        return presence.client(clientId).orElseThrow(() -> ProblemException.notFound("No MQTT client '" + clientId + "'"));
    }

    @GET
    @Path("/clients")
    @Operation(operationId = "listMqttClients",
            summary = "Clients by id (keyset paging by cursor), filtered by group id and online")
    @APIResponse(responseCode = "200", description = "A page of clients")
    @APIResponse(responseCode = "400", description = "invalid-parameter")
    public ClientPage clients(@QueryParam("groupId") String groupId, @QueryParam("online") String online,
                              @QueryParam("cursor") String cursor, @QueryParam("limit") Integer limit) {
        int n = RtcPresenceResource.limit(limit, 100, 10_000);
        List<MqttPresence.ClientSummary> page = presence.clients(blankToNull(groupId), RtcPresenceResource.bool(online),
                cursor, n);
        return new ClientPage(page, page.size() == n ? page.get(n - 1).clientId() : null);
    }

    @GET
    @Path("/groups/{groupId}/stats")
    @Operation(operationId = "getMqttGroupStats",
            summary = "Online clients of a group now, and connects/closes with event time in [from, to] (default: the last hour)")
    @APIResponse(responseCode = "200", description = "The numbers")
    @APIResponse(responseCode = "400", description = "invalid-parameter")
    public MqttPresence.GroupStats groupStats(@PathParam("groupId") String groupId, @QueryParam("from") Long from,
                                              @QueryParam("to") Long to) {
        long[] window = window(from, to);
        return presence.groupStats(groupId, window[0], window[1]);
    }

    @GET
    @Path("/clients/{clientId}/history")
    @Operation(operationId = "getMqttClientHistory",
            summary = "The client's connect/disconnect/tcpclean trajectory with event time in [from, to]")
    @APIResponse(responseCode = "200", description = "The events")
    @APIResponse(responseCode = "400", description = "invalid-parameter")
    public History history(@PathParam("clientId") String clientId, @QueryParam("from") Long from,
                           @QueryParam("to") Long to) {
        long[] window = from == null && to == null ? new long[] {0, Long.MAX_VALUE} : window(from, to);
        return new History(clientId, window[0], window[1], presence.history(clientId, window[0], window[1], 10_000));
    }

    @Schema(name = "MqttIngestStats") // in the OpenAPI document: another API type has the same simple name
    public record Stats(long applied, long deadLetteredByThisNode, long deadLettersStored) {
    }

    @GET
    @Path("/stats")
    @Operation(operationId = "getMqttIngestStats",
            summary = "Notifications applied by this node, and dead letters (malformed notifications kept, not retried)")
    @APIResponse(responseCode = "200", description = "The counters")
    public Stats stats() {
        MqttIngest.Stats s = ingest.stats();
        return new Stats(s.applied(), s.deadLettered(), presence.deadLetters());
    }

    @POST
    @Path("/events")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "postMqttStatusEvents",
            summary = "Status notifications over HTTP (one object or an array of up to 1000): the same rules as the RocketMQ feed")
    @APIResponse(responseCode = "200", description = "Applied: how many")
    @APIResponse(responseCode = "400", description = "malformed-json, invalid-status-event")
    public Map<String, Integer> post(String body) {
        List<String> items = splitJson(body);
        List<MqttStatusEvent> events = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            try {
                events.add(MqttStatusEvent.parse(items.get(i), null));
            } catch (MqttStatusEvent.Invalid e) {
                throw ProblemException.badRequest("invalid-status-event",
                        (items.size() > 1 ? "event " + i + ": " : "") + e.getMessage());
            }
        }
        ingest.ingest(events);
        return Map.of("applied", events.size());
    }

    private static List<String> splitJson(String body) {
        jakarta.json.JsonValue value;
        try (var reader = Jsonp.PROVIDER.createReader(new java.io.StringReader(body == null ? "" : body))) {
            value = reader.readValue();
        } catch (RuntimeException e) {
            throw new ProblemException(400, "malformed-json", "Malformed request body", "The body is not JSON.");
        }
        if (value instanceof jakarta.json.JsonArray array) {
            if (array.isEmpty() || array.size() > MAX_EVENTS_PER_POST) {
                throw ProblemException.badRequest("invalid-status-event", "send 1 to " + MAX_EVENTS_PER_POST + " events");
            }
            return array.stream().map(Object::toString).toList();
        }
        return List.of(value.toString());
    }

    private static long[] window(Long from, Long to) {
        long end = to != null ? to : System.currentTimeMillis() / 1000;
        long start = from != null ? from : end - 3600;
        if (start > end) {
            throw ProblemException.badRequest("invalid-parameter", "from must not be after to");
        }
        return new long[] {start, end};
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
