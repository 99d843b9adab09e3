package io.roost.identity.api;

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
    @Operation(summary = "Register: anonymous (username), or e-mail/phone in two stages (request a code, validate it)")
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
