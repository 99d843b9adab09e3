package io.roost.identity.api;

import io.roost.identity.TokenService;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.time.Duration;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Exchange credentials for a bearer token, and revoke the one in use. */
@Path("/v1/auth/tokens")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@Tag(name = "identity")
public class TokenResource {

    @Inject
    TokenService tokens;

    @POST
    @RolesAllowed({Roles.ADMIN, Roles.SERVICE, Roles.USER})
    @Operation(operationId = "issueToken", summary = "Issue a bearer token for the calling account")
    @APIResponse(responseCode = "201", description = "The token (shown only now)",
            content = @Content(schema = @Schema(implementation = TokenService.IssuedToken.class)))
    public Response issue(@Valid TokenRequest request, @Context SecurityContext security) {
        long accountId = Long.parseLong(security.getUserPrincipal().getName());
        Duration ttl = request != null && request.ttlSeconds() != null
                ? Duration.ofSeconds(request.ttlSeconds()) : TokenService.DEFAULT_TTL;
        TokenService.IssuedToken token = tokens.issue(accountId, ttl, request != null ? request.description() : null);
        return Response.status(201).entity(token).build();
    }

    @DELETE
    @Path("/current")
    @RolesAllowed({Roles.ADMIN, Roles.SERVICE, Roles.USER})
    @Operation(operationId = "revokeCurrentToken", summary = "Revoke the bearer token this request carries")
    @APIResponse(responseCode = "204", description = "Revoked")
    @APIResponse(responseCode = "400", description = "not-a-bearer-token")
    public Response revokeCurrent(@HeaderParam(HttpHeaders.AUTHORIZATION) String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            throw ProblemException.badRequest("not-a-bearer-token", "This request was not made with a bearer token.");
        }
        tokens.revoke(authorization.substring(7).trim());
        return Response.noContent().build();
    }
}
