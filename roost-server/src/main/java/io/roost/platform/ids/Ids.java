package io.roost.platform.ids;

import io.roost.platform.problem.ProblemException;

/** Ids travel as decimal strings (JavaScript-safe); a malformed one is the caller's fault. */
public final class Ids {

    private Ids() {
    }

    /**
     * The id, or 400 {@code invalid-id}: a string of digits that fits a long. Long.parseLong alone
     * would also take a sign ("-5", "+5"), which no id has (docs/protocol.md: ids are strings of digits).
     */
    public static long parse(String id) {
        if (id == null || id.isEmpty()) {
            throw invalid(id);
        }
        for (int i = 0; i < id.length(); i++) { // a loop, not a stream: every acknowledgement parses an id
            char c = id.charAt(i);
            if (c < '0' || c > '9') {
                throw invalid(id);
            }
        }
        try {
            return Long.parseLong(id);
        } catch (NumberFormatException e) {
            throw invalid(id); // more than a long holds
        }
    }

    private static ProblemException invalid(String id) {
        return ProblemException.badRequest("invalid-id", "'" + id + "' is not a decimal id.");
    }
}
