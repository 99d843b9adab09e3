package io.roost.gateway.api;

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
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** This node's gateway: its open device connections and its login group commit. */
@Path("/v1/gateway")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.ADMIN, Roles.SERVICE})
@Tag(name = "gateway")
public class GatewayResource {

    public record Stats(int connections, LoginQueue.Stats logins) {
    }

    @Inject
    Connections connections;

    @Inject
    LoginQueue logins;

    @GET
    @Path("/stats")
    @Operation(summary = "This node's logged-in device connections and login counters (attempts, batches, largest batch, queued)")
    public Stats stats() {
        return new Stats(connections.count(), logins.stats());
    }
}
