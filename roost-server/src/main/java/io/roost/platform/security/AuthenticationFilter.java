package io.roost.platform.security;

import io.roost.platform.api.JsonbResolver;
import io.roost.platform.api.RequestIdFilter;
import io.roost.platform.api.RequestIds;
import io.roost.platform.problem.Problem;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.problem.Unreachable;
import jakarta.inject.Inject;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.security.Principal;
import java.util.Optional;
import java.util.Set;

/**
 * Authenticates every request under {@code /api} (mapped in web.xml): HTTP Basic, a bearer token,
 * or, with no Authorization header, the admin UI's session cookie (with its CSRF token on changes,
 * see {@link OperatorSession}). Every path needs a caller except the {@link PublicPaths public} ones.
 * The caller reaches JAX-RS as the request's principal and roles, so {@code @RolesAllowed} and
 * {@code SecurityContext} work as usual. Failures are answered here with problem+json; a database
 * out of reach (the accounts cannot be checked) is a 503 with Retry-After ({@link Unreachable}).
 *
 * <p>A servlet filter rather than a Jakarta Security mechanism: the JASPI bridge that WildFly puts
 * around such a mechanism costs more CPU than a typical request itself (two JNDI lookups, each
 * building an exception, plus Elytron's handlers), on every request including the WebSocket upgrade.
 */
public class AuthenticationFilter extends HttpFilter {

    private static final String CHALLENGE = "Basic realm=\"roost\", Bearer realm=\"roost\"";

    @Inject
    CallerAuthenticator authenticator;

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        try {
            authenticate(request, response, chain);
        } catch (Exception e) { // also a commit's checked HeuristicMixedException, which a @Transactional proxy lets through
            // The accounts live in the database: out of reach, that is a 503 to retry, not the container's 500.
            // Also for what escapes the chain after us, if nothing of the answer has gone out yet.
            Optional<ProblemException> unavailable = Unreachable.problemFor(e);
            if (unavailable.isEmpty() || response.isCommitted()) {
                throw e;
            }
            response.reset(); // the request id's header with the rest: refuse sets it again
            refuse(request, response, unavailable.get());
        }
    }

    private void authenticate(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        String header = request.getHeader("Authorization");
        if (header == null || header.isBlank()) {
            Optional<OperatorSession.Operator> operator = OperatorSession.of(request);
            if (operator.isPresent() && !OperatorSession.isLogin(request)) {
                if (!OperatorSession.csrfOk(request, operator.get())) {
                    refuse(request, response, 403, "csrf-token-missing", "Forbidden",
                            "A request with the admin session cookie that changes something must carry the session's "
                                    + OperatorSession.CSRF_HEADER + " header.");
                    return;
                }
                chain.doFilter(new AuthenticatedRequest(request, operator.get().uid(), operator.get().roles(), "FORM"), response);
            } else if (PublicPaths.isPublic(path(request))) {
                chain.doFilter(request, response);
            } else {
                unauthorized(request, response, "missing-credentials", "This endpoint needs HTTP Basic credentials or a bearer token.");
            }
            return;
        }
        Credential credential = AuthorizationHeader.parse(header.trim());
        if (credential == null) {
            unauthorized(request, response, "malformed-credentials", "The Authorization header is neither valid Basic nor Bearer.");
            return;
        }
        Optional<CallerAuthenticator.Authenticated> caller = authenticator.authenticate(credential);
        if (caller.isEmpty()) {
            unauthorized(request, response, "invalid-credentials", "The credentials are wrong, expired, revoked, or the account is disabled.");
            return;
        }
        chain.doFilter(new AuthenticatedRequest(request, caller.get().uid(), caller.get().roles(), credential.scheme()), response);
    }

    /** The path within the application, as the container matched it (decoded, dot segments resolved). */
    private static String path(HttpServletRequest request) {
        String info = request.getPathInfo();
        return info == null ? request.getServletPath() : request.getServletPath() + info;
    }

    private static void unauthorized(HttpServletRequest request, HttpServletResponse response, String slug, String detail)
            throws IOException {
        response.setHeader("WWW-Authenticate", CHALLENGE);
        refuse(request, response, 401, slug, "Unauthorized", detail);
    }

    private static void refuse(HttpServletRequest request, HttpServletResponse response, int status, String slug, String title,
                               String detail) throws IOException {
        refuse(request, response, Problem.of(status, slug, title, detail));
    }

    private static void refuse(HttpServletRequest request, HttpServletResponse response, ProblemException problem) throws IOException {
        if (problem.retryAfterSeconds() > 0) {
            response.setHeader("Retry-After", Long.toString(problem.retryAfterSeconds()));
        }
        refuse(request, response, problem.toProblem());
    }

    /** A problem answered here, before JAX-RS: with the request's id ({@link RequestIdFilter} ran first). */
    private static void refuse(HttpServletRequest request, HttpServletResponse response, Problem problem) throws IOException {
        String requestId = RequestIds.of(request);
        if (requestId != null) {
            response.setHeader(RequestIds.HEADER, requestId);
        }
        response.setStatus(problem.status());
        response.setContentType(Problem.MEDIA_TYPE.toString());
        response.setCharacterEncoding("UTF-8");
        response.getWriter().write(JsonbResolver.jsonb().toJson(problem.forRequest(requestId)));
    }

    /** The request as the application sees it once authenticated: its principal is the account id. */
    static final class AuthenticatedRequest extends HttpServletRequestWrapper {

        private final Principal principal;
        private final Set<String> roles;
        private final String authType;

        AuthenticatedRequest(HttpServletRequest request, String uid, Set<String> roles, String authType) {
            super(request);
            this.principal = new UidPrincipal(uid);
            this.roles = roles;
            this.authType = authType;
        }

        @Override
        public Principal getUserPrincipal() {
            return principal;
        }

        @Override
        public String getRemoteUser() {
            return principal.getName();
        }

        @Override
        public boolean isUserInRole(String role) {
            return roles.contains(role);
        }

        @Override
        public String getAuthType() {
            return authType;
        }
    }

    private record UidPrincipal(String uid) implements Principal {
        @Override
        public String getName() {
            return uid;
        }
    }
}
