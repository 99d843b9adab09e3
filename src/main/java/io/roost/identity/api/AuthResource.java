package io.roost.identity.api;

import io.roost.identity.ContactAddress;
import io.roost.identity.LoginService;
import io.roost.identity.RegistrationService;
import io.roost.identity.TokenService;
import io.roost.platform.ids.Ids;
import io.roost.platform.problem.ProblemException;
import jakarta.inject.Inject;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Public authentication endpoints: device login, password reset and self-recovery by code. */
@Path("/v1/auth")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@Tag(name = "identity")
public class AuthResource {

    @Inject
    LoginService logins;

    @Inject
    RegistrationService registrations;

    @POST
    @Path("/login")
    @Operation(summary = "Device login with login name + password, or uid + saved token; returns a device-bound bearer token")
    public TokenService.IssuedToken login(@NotNull @Valid LoginRequest r, @Context HttpServletRequest http) {
        if (r.password() != null && r.login() != null && r.token() == null) {
            return logins.withPassword(r.login(), r.password(), r.deviceType(), r.deviceId(), http.getRemoteAddr());
        }
        if (r.token() != null && r.uid() != null && r.password() == null) {
            return logins.withToken(Ids.parse(r.uid()), r.token(), r.deviceType(), r.deviceId(), http.getRemoteAddr());
        }
        throw ProblemException.badRequest("login-form", "Send login + password, or uid + token (not both).");
    }

    @POST
    @Path("/password-resets")
    @Operation(summary = "Password reset: stage=request sends a code to the e-mail/phone; stage=validate with code and newPassword")
    public Response resetPassword(@NotNull @Valid CodeStageRequest r) {
        ContactAddress address = ContactAddress.either(r.email(), r.phone());
        if (r.stage().equals("request")) {
            return Response.accepted(CodeSent.of(registrations.requestPasswordReset(address))).build();
        }
        registrations.resetPassword(address, r.code(), r.newPassword());
        return Response.noContent().build();
    }

    @POST
    @Path("/recoveries")
    @Operation(summary = "Recover an account its owner disabled: stage=request sends a code; stage=validate with it")
    public Response recover(@NotNull @Valid CodeStageRequest r) {
        ContactAddress address = ContactAddress.either(r.email(), r.phone());
        if (r.stage().equals("request")) {
            return Response.accepted(CodeSent.of(registrations.requestRecovery(address))).build();
        }
        return Response.ok(AccountView.of(registrations.completeRecovery(address, r.code()))).build();
    }
}
