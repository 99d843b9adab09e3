package io.roost.platform.health;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Public (no credentials): load balancers and probes call it. 200 when all is up, else 503. */
@Path("/health")
@Tag(name = "platform")
public class HealthResource {

    @Inject
    HealthService health;

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(operationId = "getHealth", summary = "Database and broker reachability of this node")
    @APIResponse(responseCode = "200", description = "Every check is up",
            content = @Content(schema = @Schema(implementation = HealthService.Report.class)))
    @APIResponse(responseCode = "503", description = "A check is down: the same report, not a problem",
            content = @Content(schema = @Schema(implementation = HealthService.Report.class)))
    public Response health() {
        HealthService.Report report = health.check();
        return Response.status(report.up() ? 200 : 503).entity(report).build();
    }
}
