package io.roost.identity.api;

import io.roost.identity.AccountService;
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
    @Operation(summary = "Create an account with a password (operators, service accounts, users)")
    public Response create(@NotNull @Valid CreateAccountRequest request, @Context UriInfo uri) {
        Account account = accounts.create(request.username(), request.password(), request.roles());
        return Response.created(uri.getAbsolutePathBuilder().path(Long.toString(account.getId())).build())
                .entity(AccountView.of(account)).build();
    }

    @GET
    @Path("/{id}")
    @RolesAllowed({Roles.ADMIN, Roles.SERVICE, Roles.USER})
    @Operation(summary = "One account; users may read only their own")
    public AccountView get(@PathParam("id") long id, @Context SecurityContext security) {
        Caller.requireSelfOrOperator(id, security, "Users may only read their own account.");
        return AccountView.of(accounts.require(id));
    }

    @GET
    @Path("/me")
    @RolesAllowed({Roles.ADMIN, Roles.SERVICE, Roles.USER})
    @Operation(summary = "The calling account")
    public AccountView me(@Context SecurityContext security) {
        return AccountView.of(accounts.require(Caller.id(security)));
    }

    @PATCH
    @Path("/me")
    @RolesAllowed({Roles.ADMIN, Roles.SERVICE, Roles.USER})
    @Operation(summary = "Change the profile (user name, nick, avatar, gender, age, region, params); absent fields stay")
    public AccountView updateProfile(@NotNull @Valid ProfileRequest r, @Context SecurityContext security) {
        return AccountView.of(accounts.updateProfile(Caller.id(security), new AccountService.ProfileChange(
                r.username(), r.nick(), r.avatarUrl(), r.gender(), r.age(), r.region(), r.params())));
    }

    @PUT
    @Path("/me/password")
    @RolesAllowed({Roles.ADMIN, Roles.SERVICE, Roles.USER})
    @Operation(summary = "Change the password (the current one is required if there is one)")
    public Response changePassword(@NotNull @Valid PasswordChangeRequest r, @Context SecurityContext security) {
        accounts.changePassword(Caller.id(security), r.currentPassword(), r.newPassword());
        return Response.noContent().build();
    }

    @POST
    @Path("/me/address-changes")
    @RolesAllowed({Roles.ADMIN, Roles.SERVICE, Roles.USER})
    @Operation(summary = "Change e-mail or phone: stage=request sends codes to the old and new address; stage=validate with both")
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
    @Operation(summary = "Lock your own account (e.g. a device was lost): every token revoked, every connection closed")
    public AccountView disableSelf(@Context SecurityContext security) {
        return AccountView.of(accounts.disable(Caller.id(security), false));
    }

    @DELETE
    @Path("/me")
    @RolesAllowed({Roles.USER})
    @Operation(summary = "Unregister (irreversible): tokens revoked, connections closed, the id is never reused")
    public Response unregister(@Context SecurityContext security) {
        accounts.unregister(Caller.id(security));
        return Response.noContent().build();
    }

    @POST
    @Path("/{id}/disable")
    @RolesAllowed(Roles.ADMIN)
    @Operation(summary = "Disable an account (reversible): every token revoked, every connection closed at once")
    public AccountView disable(@PathParam("id") long id) {
        return AccountView.of(accounts.disable(id, true));
    }

    @POST
    @Path("/{id}/recover")
    @RolesAllowed(Roles.ADMIN)
    @Operation(summary = "Recover a disabled account")
    public AccountView recover(@PathParam("id") long id) {
        return AccountView.of(accounts.recover(id));
    }
}
