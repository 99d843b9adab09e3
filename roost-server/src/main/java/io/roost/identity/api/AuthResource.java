package io.roost.identity.api;

import io.roost.identity.AccountView;
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
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
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
    @Operation(operationId = "login",
            summary = "Device login with login name + password, or uid + saved token; returns a device-bound bearer token")
    @APIResponse(responseCode = "200", description = "A bearer token bound to the device")
    @APIResponse(responseCode = "400", description = "login-form, invalid-id, unknown-device-type, invalid-device-id")
    @APIResponse(responseCode = "401",
            description = "invalid-credentials: wrong login or password, or the saved token is not live")
    @APIResponse(responseCode = "403", description = "forbidden: the account is disabled or unregistered")
    @APIResponse(responseCode = "429", description = "too-many-attempts: the account or the client address is locked for a while")
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
    @Operation(operationId = "resetPassword",
            summary = "Password reset: stage=request sends a code to the e-mail/phone; stage=validate with code and newPassword")
    @APIResponse(responseCode = "202", description = "stage=request: a code was sent if an active account has the address",
            content = @Content(schema = @Schema(implementation = CodeSent.class)))
    @APIResponse(responseCode = "204", description = "stage=validate: the password is changed and every token revoked")
    @APIResponse(responseCode = "400", description = "one-address, invalid-email, invalid-phone, invalid-code, weak-password")
    @APIResponse(responseCode = "409", description = "account-not-active")
    @APIResponse(responseCode = "429", description = CodeSent.THROTTLED)
    @APIResponse(responseCode = "502", description = CodeSent.DELIVERY_FAILED)
    @APIResponse(responseCode = "503", description = CodeSent.DELIVERY_UNAVAILABLE)
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
    @Operation(operationId = "recoverOwnAccount",
            summary = "Recover an account its owner disabled: stage=request sends a code; stage=validate with it")
    @APIResponse(responseCode = "202", description = "stage=request: a code was sent if its owner disabled the account",
            content = @Content(schema = @Schema(implementation = CodeSent.class)))
    @APIResponse(responseCode = "200", description = "stage=validate: the account is active again",
            content = @Content(schema = @Schema(implementation = AccountView.class)))
    @APIResponse(responseCode = "400", description = "one-address, invalid-email, invalid-phone, invalid-code")
    @APIResponse(responseCode = "409", description = "not-self-recoverable")
    @APIResponse(responseCode = "429", description = CodeSent.THROTTLED)
    @APIResponse(responseCode = "502", description = CodeSent.DELIVERY_FAILED)
    @APIResponse(responseCode = "503", description = CodeSent.DELIVERY_UNAVAILABLE)
    public Response recover(@NotNull @Valid CodeStageRequest r) {
        ContactAddress address = ContactAddress.either(r.email(), r.phone());
        if (r.stage().equals("request")) {
            return Response.accepted(CodeSent.of(registrations.requestRecovery(address))).build();
        }
        return Response.ok(AccountView.of(registrations.completeRecovery(address, r.code()))).build();
    }
}
