package io.roost.platform.health;

import io.roost.platform.cluster.Draining;
import io.roost.platform.problem.Problem;
import io.roost.platform.problem.Unreachable;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * Public (no credentials): load balancers and probes call it. 200 with the report when all is up;
 * else 503 service-unavailable (problem+json, with Retry-After, like every other answer while a
 * dependency is out of reach) carrying the same {@code checks}.
 */
@Path("/health")
@Tag(name = "platform")
public class HealthResource {

    @Inject
    HealthService health;

    @Inject
    Draining draining;

    @GET
    @Produces({MediaType.APPLICATION_JSON, "application/problem+json"})
    @Operation(operationId = "getHealth", summary = "Database and broker reachability of this node")
    @APIResponse(responseCode = "200", description = "Every check is up",
            content = @Content(schema = @Schema(implementation = HealthService.Report.class)))
    @APIResponse(responseCode = "503", description = "service-unavailable, with Retry-After; besides the problem's"
            + " members it carries up (false) and checks: the report, saying what is down and why",
            content = @Content(mediaType = "application/problem+json", schema = @Schema(implementation = Problem.class)))
    public Response health() {
        HealthService.Report report = health.check();
        if (report.up()) {
            return Response.ok(report, MediaType.APPLICATION_JSON_TYPE).build();
        }
        String down = report.checks().entrySet().stream().filter(c -> !c.getValue().up()).map(Map.Entry::getKey)
                .collect(Collectors.joining(" and "));
        // A problem with one extension member, the checks: the probe sees what is down and why.
        Map<String, Object> problem = new LinkedHashMap<>();
        problem.put("type", Problem.TYPE_PREFIX + Unreachable.TYPE);
        problem.put("title", "Service unavailable");
        problem.put("status", 503);
        problem.put("detail", "Out of reach: " + down + ".");
        problem.put("up", false);
        problem.put("checks", report.checks());
        return Response.status(503).type(Problem.MEDIA_TYPE).header("Retry-After", Unreachable.RETRY_AFTER_SECONDS)
                .entity(problem).build();
    }

    /**
     * For the load balancer: whether this node takes new connections. 200 while it serves, also
     * while a dependency is out of reach (every node would be, and taking them all out of rotation
     * helps nobody); 404 once it drains: the answer HAProxy's {@code http-check disable-on-404}
     * reads as "no new connections, keep the open ones", which is what a drain needs (a node
     * marked down would have its open connections cut at once).
     */
    @GET
    @Path("/serving")
    @Produces({MediaType.APPLICATION_JSON, "application/problem+json"})
    @Operation(operationId = "getServing", summary = "Whether this node takes new connections (the load balancer's check)")
    @APIResponse(responseCode = "200", description = "Serving",
            content = @Content(schema = @Schema(implementation = Serving.class)))
    @APIResponse(responseCode = "404", description = "draining: this node is being taken out of service (it serves no more new connections)",
            content = @Content(mediaType = "application/problem+json", schema = @Schema(implementation = Problem.class)))
    public Response serving() {
        if (!draining.isDraining()) {
            return Response.ok(new Serving(true), MediaType.APPLICATION_JSON_TYPE).build();
        }
        Map<String, Object> problem = new LinkedHashMap<>();
        problem.put("type", Problem.TYPE_PREFIX + DRAINING);
        problem.put("title", "Draining");
        problem.put("status", 404);
        problem.put("detail", "This node is being taken out of service since " + draining.since().orElseThrow()
                + "; the other nodes take new connections.");
        return Response.status(404).type(Problem.MEDIA_TYPE).entity(problem).build();
    }

    /** The problem type of a draining node's answer. */
    public static final String DRAINING = "draining";

    @Schema(name = "Serving")
    public record Serving(boolean serving) {
    }
}
