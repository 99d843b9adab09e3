package io.roost.platform.security;

import io.roost.platform.problem.Problem;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.security.enterprise.AuthenticationStatus;
import jakarta.security.enterprise.authentication.mechanism.http.HttpAuthenticationMechanism;
import jakarta.security.enterprise.authentication.mechanism.http.HttpMessageContext;
import jakarta.security.enterprise.credential.Credential;
import jakarta.security.enterprise.identitystore.CredentialValidationResult;
import jakarta.security.enterprise.identitystore.IdentityStoreHandler;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * HTTP Basic and bearer tokens on every request, and the admin UI's session cookie (with its CSRF
 * token, see {@link OperatorSession}) when there is no Authorization header. Which URLs need a caller is declared in web.xml
 * (everything under /api except health and signed webhooks); this mechanism only authenticates.
 * Failures are answered here with problem+json, because the container's own 401 is an HTML page.
 */
@ApplicationScoped
public class RoostAuthenticationMechanism implements HttpAuthenticationMechanism {

    private static final String CHALLENGE = "Basic realm=\"roost\", Bearer realm=\"roost\"";
    private static final Jsonb JSONB = JsonbBuilder.create();

    @Inject
    IdentityStoreHandler identityStoreHandler;

    @Override
    public AuthenticationStatus validateRequest(HttpServletRequest request, HttpServletResponse response,
                                                HttpMessageContext context) {
        String header = request.getHeader("Authorization");
        if (header == null || header.isBlank()) {
            var operator = OperatorSession.of(request);
            if (operator.isPresent() && !OperatorSession.isLogin(request)) {
                if (!OperatorSession.csrfOk(request, operator.get())) {
                    return refuse(response, 403, "csrf-token-missing", "Forbidden",
                            "A request with the admin session cookie that changes something must carry the session's "
                                    + OperatorSession.CSRF_HEADER + " header.");
                }
                return context.notifyContainerAboutLogin(new jakarta.security.enterprise.CallerPrincipal(operator.get().uid()),
                        operator.get().roles());
            }
            return context.isProtected()
                    ? unauthorized(response, context, "missing-credentials",
                            "This endpoint needs HTTP Basic credentials or a bearer token.")
                    : context.doNothing();
        }
        Credential credential = AuthorizationHeader.parse(header.trim());
        if (credential == null) {
            return unauthorized(response, context, "malformed-credentials",
                    "The Authorization header is neither valid Basic nor Bearer.");
        }
        CredentialValidationResult result = identityStoreHandler.validate(credential);
        if (result.getStatus() == CredentialValidationResult.Status.VALID) {
            return context.notifyContainerAboutLogin(result);
        }
        return unauthorized(response, context, "invalid-credentials",
                "The credentials are wrong, expired, revoked, or the account is disabled.");
    }

    private static AuthenticationStatus unauthorized(HttpServletResponse response, HttpMessageContext context,
                                                     String slug, String detail) {
        response.setHeader("WWW-Authenticate", CHALLENGE);
        return refuse(response, 401, slug, "Unauthorized", detail);
    }

    private static AuthenticationStatus refuse(HttpServletResponse response, int status, String slug, String title, String detail) {
        try {
            response.setStatus(status);
            response.setContentType(Problem.MEDIA_TYPE.toString());
            response.setCharacterEncoding("UTF-8");
            response.getWriter().write(JSONB.toJson(Problem.of(status, slug, title, detail)));
            // Closing completes the exchange, so Undertow does not try its own error page on top.
            response.getWriter().close();
        } catch (IOException e) {
            // The client went away; nothing more to tell it.
        }
        return AuthenticationStatus.SEND_FAILURE;
    }
}
