package io.roost.platform.security;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpSession;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Set;

/**
 * The admin web UI's login: an HTTP session (cookie {@code HttpOnly}, {@code SameSite=Strict})
 * holding the operator's account id and roles, and a CSRF token that every state-changing request
 * made with the cookie must echo in {@code X-CSRF-Token}. API clients keep using Basic or bearer.
 */
public final class OperatorSession {

    public static final String CSRF_HEADER = "X-CSRF-Token";
    private static final String UID = "roost.operator.uid";
    private static final String ROLES = "roost.operator.roles";
    private static final String CSRF = "roost.operator.csrf";
    private static final SecureRandom RANDOM = new SecureRandom();

    public record Operator(String uid, Set<String> roles, String csrfToken) {
    }

    private OperatorSession() {
    }

    /** Starts a session for a verified operator (a new session id: no fixation) and returns its CSRF token. */
    public static Operator start(HttpServletRequest request, String uid, Set<String> roles) {
        HttpSession old = request.getSession(false);
        if (old != null) {
            old.invalidate();
        }
        HttpSession session = request.getSession(true);
        byte[] token = new byte[32];
        RANDOM.nextBytes(token);
        String csrf = Base64.getUrlEncoder().withoutPadding().encodeToString(token);
        session.setAttribute(UID, uid);
        session.setAttribute(ROLES, Set.copyOf(roles));
        session.setAttribute(CSRF, csrf);
        return new Operator(uid, Set.copyOf(roles), csrf);
    }

    /** The operator of this request's session, if it has one. */
    @SuppressWarnings("unchecked")
    public static java.util.Optional<Operator> of(HttpServletRequest request) {
        HttpSession session = request.getSession(false);
        if (session == null || !(session.getAttribute(UID) instanceof String uid)) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new Operator(uid, (Set<String>) session.getAttribute(ROLES), (String) session.getAttribute(CSRF)));
    }

    public static void end(HttpServletRequest request) {
        HttpSession session = request.getSession(false);
        if (session != null) {
            session.invalidate();
        }
    }

    /** The login request itself needs no token (a stale session cookie must not block a new login). */
    static boolean isLogin(HttpServletRequest request) {
        return request.getMethod().equals("POST") && request.getRequestURI().endsWith(PublicPaths.OPERATOR_SIGN_IN);
    }

    /** Safe methods need no token; the others must carry the session's token (compared in constant time). */
    static boolean csrfOk(HttpServletRequest request, Operator operator) {
        String method = request.getMethod();
        if (method.equals("GET") || method.equals("HEAD") || method.equals("OPTIONS")) {
            return true;
        }
        String sent = request.getHeader(CSRF_HEADER);
        return sent != null && MessageDigest.isEqual(sent.getBytes(StandardCharsets.UTF_8),
                operator.csrfToken().getBytes(StandardCharsets.UTF_8));
    }
}
