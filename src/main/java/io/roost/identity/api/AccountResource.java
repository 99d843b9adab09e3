package io.roost.identity.api;

import io.roost.identity.AccountService;
import io.roost.identity.store.Account;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
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

@Path("/v1/accounts")
@Produces(MediaType.APPLICATION_JSON)
@Consumes(MediaType.APPLICATION_JSON)
@Tag(name = "identity")
public class AccountResource {

    @Inject
    AccountService accounts;

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
        boolean self = Long.toString(id).equals(security.getUserPrincipal().getName());
        if (!self && !security.isUserInRole(Roles.ADMIN) && !security.isUserInRole(Roles.SERVICE)) {
            throw ProblemException.forbidden("Users may only read their own account.");
        }
        return accounts.find(id).map(AccountView::of)
                .orElseThrow(() -> ProblemException.notFound("No account " + id));
    }

    @GET
    @Path("/me")
    @RolesAllowed({Roles.ADMIN, Roles.SERVICE, Roles.USER})
    @Operation(summary = "The calling account")
    public AccountView me(@Context SecurityContext security) {
        long id = Long.parseLong(security.getUserPrincipal().getName());
        return accounts.find(id).map(AccountView::of)
                .orElseThrow(() -> ProblemException.notFound("No account " + id));
    }
}
