package io.roost.identity.api;

import io.roost.identity.AccountView;
import io.roost.identity.ContactAddress;
import io.roost.identity.LoginService;
import io.roost.identity.RegistrationService;
import io.roost.identity.TokenService;
import io.roost.identity.store.Account;
import io.roost.platform.problem.ProblemException;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Self-registration (public): anonymous with a user name, or by e-mail / phone with a code. */
@Path("/v1/registrations")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@Tag(name = "identity")
public class RegistrationResource {

    @Inject
    RegistrationService registrations;

    @Inject
    LoginService logins;

    @POST
    @Operation(operationId = "register",
            summary = "Register: anonymous (username), or e-mail/phone in two stages (request a code, validate it)")
    @APIResponse(responseCode = "201", description = "Registered (with a device token when deviceType and deviceId were sent)",
            content = @Content(schema = @Schema(implementation = RegistrationResult.class)))
    @APIResponse(responseCode = "202", description = "stage=request: a code was sent to the address",
            content = @Content(schema = @Schema(implementation = CodeSent.class)))
    @APIResponse(responseCode = "400",
            description = "one-address, invalid-email, invalid-phone, stage-required, username-required, invalid-username, weak-password, invalid-code, unknown-device-type, invalid-device-id")
    @APIResponse(responseCode = "409", description = "username-taken, already-registered")
    @APIResponse(responseCode = "429", description = CodeSent.THROTTLED)
    @APIResponse(responseCode = "502", description = CodeSent.DELIVERY_FAILED)
    @APIResponse(responseCode = "503", description = CodeSent.DELIVERY_UNAVAILABLE)
    public Response register(@NotNull @Valid RegistrationRequest r, @Context UriInfo uri) {
        boolean withDevice = r.deviceType() != null || r.deviceId() != null;
        if (withDevice) {
            logins.checkDevice(r.deviceType(), r.deviceId()); // before anything is created
        }
        Account account;
        if (r.email() == null && r.phone() == null) {
            if (r.stage() != null) {
                throw ProblemException.badRequest("one-address", "A two-stage registration needs an email or a phone.");
            }
            account = registrations.registerAnonymous(r.username(), r.password());
        } else {
            ContactAddress address = ContactAddress.either(r.email(), r.phone());
            if (r.stage() == null) {
                throw ProblemException.badRequest("stage-required", "stage is request (send a code) or validate.");
            }
            if (r.stage().equals("request")) {
                return Response.accepted(CodeSent.of(registrations.requestRegistration(address))).build();
            }
            account = registrations.completeRegistration(address, r.code(), r.username(), r.password());
        }
        TokenService.IssuedToken token = null;
        if (withDevice) {
            token = logins.issueFor(account.getId(), r.deviceType(), r.deviceId());
        }
        return Response.created(uri.getBaseUriBuilder().path("v1/accounts").path(Long.toString(account.getId())).build())
                .entity(new RegistrationResult(AccountView.of(account), token)).build();
    }
}
