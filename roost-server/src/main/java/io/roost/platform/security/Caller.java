package io.roost.platform.security;

import io.roost.platform.ids.Ids;
import io.roost.platform.problem.ProblemException;
import jakarta.ws.rs.core.SecurityContext;

/** Who is calling a resource: the account id behind the principal, and whether it acts for others. */
public final class Caller {

    private Caller() {
    }

    /** The caller's account id. */
    public static long id(SecurityContext sc) {
        return Long.parseLong(sc.getUserPrincipal().getName());
    }

    /** Operators and enterprise back ends act on behalf of any user; end users only for themselves. */
    public static boolean actsForOthers(SecurityContext sc) {
        return sc.isUserInRole(Roles.ADMIN) || sc.isUserInRole(Roles.SERVICE);
    }

    /** A uid path/query value: {@code me} is the caller; otherwise a decimal id (400 {@code invalid-id}). */
    public static long user(String uid, SecurityContext sc) {
        return "me".equals(uid) ? id(sc) : Ids.parse(uid);
    }

    /** 403 unless {@code uid} is the caller or the caller acts for others. */
    public static long requireSelfOrOperator(long uid, SecurityContext sc, String message) {
        if (uid != id(sc) && !actsForOthers(sc)) {
            throw ProblemException.forbidden(message);
        }
        return uid;
    }
}
