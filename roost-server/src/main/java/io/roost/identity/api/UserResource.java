package io.roost.identity.api;

import io.roost.identity.AccountService;
import io.roost.identity.ContactAddress;
import io.roost.identity.store.Account;
import io.roost.platform.api.Page;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** Finding users: exact by id, user name, e-mail or phone; by user-name prefix or fuzzily. */
@Path("/v1/users")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.ADMIN, Roles.SERVICE, Roles.USER})
@Tag(name = "identity")
public class UserResource {

    static final int MAX_LIMIT = 100;

    @Inject
    AccountService accounts;

    @GET
    @Path("/{id}")
    @Operation(operationId = "getUser", summary = "A user's public profile")
    @APIResponse(responseCode = "200", description = "The profile")
    @APIResponse(responseCode = "404", description = "not-found: no such active user")
    public UserView get(@PathParam("id") long id) {
        return accounts.find(id).filter(Account::isActive).map(UserView::of)
                .orElseThrow(() -> ProblemException.notFound("No user " + id));
    }

    @GET
    @Operation(operationId = "findUsers",
            summary = "Exact: ?username= | ?email= | ?phone=. Search: ?q=&match=prefix (paged by ?after=) | fuzzy (best matches)")
    @APIResponse(responseCode = "200", description = "The users found (next: the cursor of the following page)")
    @APIResponse(responseCode = "400",
            description = "one-criterion, invalid-query, invalid-match, invalid-limit, invalid-email, invalid-phone")
    public Page<UserView> find(@QueryParam("username") String username, @QueryParam("email") String email,
                         @QueryParam("phone") String phone, @QueryParam("q") String q,
                         @QueryParam("match") @DefaultValue("prefix") String match,
                         @QueryParam("after") String after, @QueryParam("limit") @DefaultValue("20") int limit) {
        int given = (username != null ? 1 : 0) + (email != null ? 1 : 0) + (phone != null ? 1 : 0) + (q != null ? 1 : 0);
        if (given != 1) {
            throw ProblemException.badRequest("one-criterion", "Give exactly one of username, email, phone and q.");
        }
        Page.checkLimit(limit, MAX_LIMIT);
        if (q == null) {
            Optional<Account> found = username != null ? accounts.findByUsername(username)
                    : email != null ? accounts.findByAddress(ContactAddress.email(email))
                    : accounts.findByAddress(ContactAddress.phone(phone));
            return Page.last(found.filter(Account::isActive).map(UserView::of).stream().toList());
        }
        if (!q.matches("[A-Za-z0-9_-]{1,64}")) {
            throw ProblemException.badRequest("invalid-query", "q is 1 to 64 letters, digits, '_' or '-'.");
        }
        return switch (match) {
            case "prefix" -> Page.of(accounts.searchByPrefix(q, after, limit + 1), limit, UserView::of, UserView::username);
            case "fuzzy" -> Page.last(accounts.searchFuzzy(q, limit).stream().map(UserView::of).toList());
            default -> throw ProblemException.badRequest("invalid-match", "match is prefix or fuzzy.");
        };
    }
}
