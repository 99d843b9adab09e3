package io.roost.platform.problem;

/**
 * A failure the caller should see as {@code application/problem+json}. {@code type} is a short,
 * stable slug (e.g. {@code "not-found"}); clients switch on it, so it never changes once published.
 */
public class ProblemException extends RuntimeException {

    private final int status;
    private final String type;
    private final String title;

    public ProblemException(int status, String type, String title, String detail) {
        super(detail);
        this.status = status;
        this.type = type;
        this.title = title;
    }

    public static ProblemException badRequest(String type, String detail) {
        return new ProblemException(400, type, "Bad request", detail);
    }

    public static ProblemException notFound(String detail) {
        return new ProblemException(404, "not-found", "Not found", detail);
    }

    public static ProblemException conflict(String type, String detail) {
        return new ProblemException(409, type, "Conflict", detail);
    }

    public static ProblemException forbidden(String detail) {
        return new ProblemException(403, "forbidden", "Forbidden", detail);
    }

    public int status() {
        return status;
    }

    public String type() {
        return type;
    }

    public String title() {
        return title;
    }
}
