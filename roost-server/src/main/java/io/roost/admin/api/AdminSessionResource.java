package io.roost.admin.api;

import io.roost.admin.AuditTrail;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.security.CallerAuthenticator;
import io.roost.platform.security.Credential;
import io.roost.platform.security.OperatorSession;
import io.roost.platform.security.Roles;
import jakarta.inject.Inject;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * The admin UI's sign-in: a session cookie for operators (accounts with the admin role), with the
 * CSRF token the UI sends back on every change. Public in web.xml: it checks the password itself,
 * through the same authenticator (and per-account lock-out) as HTTP Basic.
 */
@Path("/v1/admin/session")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@Tag(name = "admin")
public class AdminSessionResource {

    public record SignIn(@NotBlank @Size(max = 64) String username, @NotBlank @Size(max = 256) String password) {
    }

    @Schema(name = "OperatorSession") // in the OpenAPI document: another API type has the same simple name
    public record SessionView(String uid, String csrfToken) {
    }

    @Inject
    CallerAuthenticator authenticator;

    @Inject
    AuditTrail audit;

    @Context
    HttpServletRequest request;

    @POST
    @Operation(operationId = "signInOperator",
            summary = "Sign in as an operator: sets the session cookie, returns the CSRF token")
    @APIResponse(responseCode = "200", description = "Signed in: the session cookie is set")
    @APIResponse(responseCode = "401", description = "invalid-credentials: wrong user name or password, or the account is locked")
    @APIResponse(responseCode = "403", description = "forbidden: not an operator (the admin role)")
    public SessionView signIn(@NotNull @Valid SignIn body) {
        CallerAuthenticator.Authenticated caller = authenticator.authenticate(new Credential.Basic(body.username(), body.password()))
                .orElseThrow(() -> new ProblemException(401, "invalid-credentials", "Unauthorized",
                        "Wrong user name or password, or the account is locked."));
        String uid = caller.uid();
        if (!caller.roles().contains(Roles.ADMIN)) {
            audit.recordAlone(Long.parseLong(uid), "sign-in", "account", uid, "not an operator", "refused");
            throw ProblemException.forbidden("Only operators (the admin role) may use the admin console.");
        }
        OperatorSession.Operator operator = OperatorSession.start(request, uid, caller.roles());
        audit.recordAlone(Long.parseLong(uid), "sign-in", "account", uid, null, "ok");
        return new SessionView(uid, operator.csrfToken());
    }

    @GET
    @Operation(operationId = "getOperatorSession", summary = "The current operator session (401 no-session)")
    @APIResponse(responseCode = "200", description = "The session")
    @APIResponse(responseCode = "401", description = "no-session")
    public SessionView current() {
        return OperatorSession.of(request).map(o -> new SessionView(o.uid(), o.csrfToken()))
                .orElseThrow(() -> new ProblemException(401, "no-session", "Unauthorized", "Not signed in."));
    }

    @DELETE
    @Operation(operationId = "signOutOperator", summary = "Sign out")
    @APIResponse(responseCode = "204", description = "Signed out")
    public Response signOut() {
        OperatorSession.end(request);
        return Response.noContent().build();
    }
}
