package io.roost.platform.ids;

import io.roost.platform.problem.ProblemException;

/** Ids travel as decimal strings (JavaScript-safe); a malformed one is the caller's fault. */
public final class Ids {

    private Ids() {
    }

    /** The id, or 400 {@code invalid-id}. */
    public static long parse(String id) {
        try {
            return Long.parseLong(id);
        } catch (NumberFormatException e) {
            throw ProblemException.badRequest("invalid-id", "'" + id + "' is not a decimal id.");
        }
    }
}
