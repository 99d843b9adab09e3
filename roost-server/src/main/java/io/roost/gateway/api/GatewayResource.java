package io.roost.gateway.api;

import io.roost.gateway.NodeDrain;
import io.roost.platform.problem.ProblemException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import io.roost.gateway.Connections;
import io.roost.gateway.LoginQueue;
import io.roost.platform.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** This node's gateway: its open device connections and its login group commit. */
@Path("/v1/gateway")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.ADMIN, Roles.SERVICE})
@Tag(name = "gateway")
@APIResponse(responseCode = "403", description = "forbidden: operators and back ends (admin, service) only")
public class GatewayResource {

    @Schema(name = "GatewayStats") // in the OpenAPI document: another API type has the same simple name
    public record Stats(int connections, LoginQueue.Stats logins,
                        @Schema(description = "groups with a member connection here, in this node's online index") int indexedGroups,
                        @Schema(description = "(group, connection) entries of this node's online index") int indexEntries) {
    }

    @Schema(name = "GatewayGroupIndex", description = "This node's online index of one group: its members' connections here")
    public record GroupIndexView(String group, int connections) {
    }

    @Inject
    io.roost.gateway.GroupFanout groups;

    @Inject
    Connections connections;

    @Inject
    LoginQueue logins;

    @GET
    @Path("/stats")
    @Operation(operationId = "getGatewayStats",
            summary = "This node's logged-in device connections and login counters (attempts, batches, largest batch, queued)")
    @APIResponse(responseCode = "200", description = "The counters")
    public Stats stats() {
        int[] index = groups.indexSize();
        return new Stats(connections.count(), logins.stats(), index[0], index[1]);
    }

    @GET
    @Path("/groups/{group}")
    @Operation(operationId = "getGatewayGroupIndex",
            summary = "How many of this node's connections its online index holds for a group's current members (what a message to it is written to here)")
    @APIResponse(responseCode = "200", description = "The count")
    @APIResponse(responseCode = "400", description = "invalid-id")
    public GroupIndexView group(@jakarta.ws.rs.PathParam("group") String group) {
        long id = io.roost.platform.ids.Ids.parse(group);
        return new GroupIndexView(Long.toString(id), groups.connectionsOf(id).size());
    }

    @Inject
    NodeDrain drain;

    @Schema(name = "DrainRequest")
    public record DrainRequest(
            @Schema(description = "over how many seconds the node's devices are asked to reconnect elsewhere (0-600; default ROOST_DRAIN_SPREAD)")
            Integer spreadSeconds) {
    }

    @POST
    @Path("/drain")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(operationId = "drainNode", summary = "Takes the node answering this call out of service: no new connections, its devices"
            + " asked to reconnect elsewhere (spread over spreadSeconds), its timers stop claiming work. Call the node itself"
            + " (its own address), not the load balancer. Once the status says done, stop the node. Repeating it changes nothing.")
    @APIResponse(responseCode = "202", description = "Draining: the drain's status",
            content = @Content(schema = @Schema(implementation = NodeDrain.Status.class)))
    @APIResponse(responseCode = "400", description = "invalid-spread")
    public Response startDrain(DrainRequest request) {
        Integer seconds = request == null ? null : request.spreadSeconds();
        if (seconds != null && (seconds < 0 || seconds > 600)) {
            throw ProblemException.badRequest("invalid-spread", "spreadSeconds is 0 to 600.");
        }
        Duration spread = seconds == null ? drain.defaultSpread() : Duration.ofSeconds(seconds);
        return Response.accepted(drain.start(spread)).build();
    }

    @GET
    @Path("/drain")
    @Operation(operationId = "getDrainStatus", summary = "Whether the node answering this call drains, and how far it got")
    @APIResponse(responseCode = "200", description = "The drain's status (draining false: it serves)")
    public NodeDrain.Status drainStatus() {
        return drain.status();
    }
}
