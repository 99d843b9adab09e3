package io.roost.identity.api;

import io.roost.identity.AccountService;
import io.roost.identity.AccountView;
import io.roost.identity.ContactAddress;
import io.roost.identity.RegistrationService;
import io.roost.identity.store.Account;
import io.roost.platform.security.Caller;
import io.roost.platform.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Accounts: operators create, disable and recover them; owners read and change their own. */
@Path("/v1/accounts")
@Produces(MediaType.APPLICATION_JSON)
@Consumes({MediaType.APPLICATION_JSON, "application/merge-patch+json"})
@Tag(name = "identity")
public class AccountResource {

    @Inject
    AccountService accounts;

    @Inject
    RegistrationService registrations;

    @POST
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "createAccount", summary = "Create an account with a password (operators, service accounts, users)")
    @APIResponse(responseCode = "201", description = "Created",
            content = @Content(schema = @Schema(implementation = AccountView.class)))
    @APIResponse(responseCode = "400", description = "unknown-role, invalid-username, weak-password")
    @APIResponse(responseCode = "403", description = "forbidden: operators (the admin role) only")
    @APIResponse(responseCode = "409", description = "username-taken")
    public Response create(@NotNull @Valid CreateAccountRequest request, @Context UriInfo uri) {
        Account account = accounts.create(request.username(), request.password(), request.roles());
        return Response.created(uri.getAbsolutePathBuilder().path(Long.toString(account.getId())).build())
                .entity(AccountView.of(account)).build();
    }

    @GET
    @Path("/{id}")
    @RolesAllowed({Roles.ADMIN, Roles.SERVICE, Roles.USER})
    @Operation(operationId = "getAccount", summary = "One account; users may read only their own")
    @APIResponse(responseCode = "200", description = "The account")
    @APIResponse(responseCode = "403", description = "forbidden: users read only their own account")
    @APIResponse(responseCode = "404", description = "not-found: no such account")
    public AccountView get(@PathParam("id") long id, @Context SecurityContext security) {
        Caller.requireSelfOrOperator(id, security, "Users may only read their own account.");
        return accounts.view(id);
    }

    @GET
    @Path("/me")
    @RolesAllowed({Roles.ADMIN, Roles.SERVICE, Roles.USER})
    @Operation(operationId = "getMyAccount", summary = "The calling account")
    @APIResponse(responseCode = "200", description = "The calling account")
    public AccountView me(@Context SecurityContext security) {
        return accounts.view(Caller.id(security));
    }

    @PATCH
    @Path("/me")
    @RolesAllowed({Roles.ADMIN, Roles.SERVICE, Roles.USER})
    @Operation(operationId = "updateMyProfile",
            summary = "Change the profile (user name, nick, avatar, gender, age, region, params); absent fields stay")
    @APIResponse(responseCode = "200", description = "The changed account")
    @APIResponse(responseCode = "400", description = "invalid-username, invalid-avatar-url, too-many-params, invalid-param")
    @APIResponse(responseCode = "409", description = "username-taken, account-not-active, concurrent-modification")
    public AccountView updateProfile(@NotNull @Valid ProfileRequest r, @Context SecurityContext security) {
        return AccountView.of(accounts.updateProfile(Caller.id(security), new AccountService.ProfileChange(
                r.username(), r.nick(), r.avatarUrl(), r.gender(), r.age(), r.region(), r.params())));
    }

    @PUT
    @Path("/me/password")
    @RolesAllowed({Roles.ADMIN, Roles.SERVICE, Roles.USER})
    @Operation(operationId = "changeMyPassword", summary = "Change the password (the current one is required if there is one)")
    @APIResponse(responseCode = "204", description = "Changed")
    @APIResponse(responseCode = "400", description = "weak-password")
    @APIResponse(responseCode = "403", description = "forbidden: the current password is wrong")
    @APIResponse(responseCode = "409", description = "account-not-active, concurrent-modification")
    public Response changePassword(@NotNull @Valid PasswordChangeRequest r, @Context SecurityContext security) {
        accounts.changePassword(Caller.id(security), r.currentPassword(), r.newPassword());
        return Response.noContent().build();
    }

    @POST
    @Path("/me/address-changes")
    @RolesAllowed({Roles.ADMIN, Roles.SERVICE, Roles.USER})
    @Operation(operationId = "changeMyAddress",
            summary = "Change e-mail or phone: stage=request sends codes to the old and new address; stage=validate with both")
    @APIResponse(responseCode = "202", description = "stage=request: codes were sent to the current and the new address",
            content = @Content(schema = @Schema(implementation = CodeSent.class)))
    @APIResponse(responseCode = "200", description = "stage=validate: the address is changed",
            content = @Content(schema = @Schema(implementation = AccountView.class)))
    @APIResponse(responseCode = "400", description = "one-address, invalid-email, invalid-phone, invalid-code")
    @APIResponse(responseCode = "409", description = "account-not-active, address-taken")
    @APIResponse(responseCode = "429", description = CodeSent.THROTTLED)
    @APIResponse(responseCode = "502", description = CodeSent.DELIVERY_FAILED)
    @APIResponse(responseCode = "503", description = CodeSent.DELIVERY_UNAVAILABLE)
    public Response changeAddress(@NotNull @Valid AddressChangeRequest r, @Context SecurityContext security) {
        ContactAddress address = ContactAddress.either(r.email(), r.phone());
        if (r.stage().equals("request")) {
            return Response.accepted(CodeSent.of(registrations.requestAddressChange(Caller.id(security), address))).build();
        }
        return Response.ok(AccountView.of(
                registrations.completeAddressChange(Caller.id(security), address, r.oldCode(), r.newCode()))).build();
    }

    @POST
    @Path("/me/disable")
    @RolesAllowed({Roles.USER})
    @Operation(operationId = "disableMyAccount",
            summary = "Lock your own account (e.g. a device was lost): every token revoked, every connection closed")
    @APIResponse(responseCode = "200", description = "The disabled account")
    @APIResponse(responseCode = "403", description = "forbidden: end users (the user role) only")
    @APIResponse(responseCode = "409", description = "account-unregistered")
    public AccountView disableSelf(@Context SecurityContext security) {
        return accounts.disable(Caller.id(security), false);
    }

    @DELETE
    @Path("/me")
    @RolesAllowed({Roles.USER})
    @Operation(operationId = "unregisterMyAccount",
            summary = "Unregister (irreversible): tokens revoked, connections closed, the id is never reused")
    @APIResponse(responseCode = "204", description = "Unregistered")
    @APIResponse(responseCode = "403", description = "forbidden: end users (the user role) only")
    public Response unregister(@Context SecurityContext security) {
        accounts.unregister(Caller.id(security));
        return Response.noContent().build();
    }

    @POST
    @Path("/{id}/disable")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "disableAccount",
            summary = "Disable an account (reversible): every token revoked, every connection closed at once")
    @APIResponse(responseCode = "200", description = "The disabled account")
    @APIResponse(responseCode = "403", description = "forbidden: operators (the admin role) only")
    @APIResponse(responseCode = "404", description = "not-found: no such account")
    @APIResponse(responseCode = "409", description = "account-unregistered")
    public AccountView disable(@PathParam("id") long id) {
        return accounts.disable(id, true);
    }

    @POST
    @Path("/{id}/recover")
    @RolesAllowed(Roles.ADMIN)
    @Operation(operationId = "recoverAccount", summary = "Recover a disabled account")
    @APIResponse(responseCode = "200", description = "The recovered account")
    @APIResponse(responseCode = "403", description = "forbidden: operators (the admin role) only")
    @APIResponse(responseCode = "404", description = "not-found: no such account")
    @APIResponse(responseCode = "409", description = "account-unregistered")
    public AccountView recover(@PathParam("id") long id) {
        return accounts.recover(id);
    }
}
