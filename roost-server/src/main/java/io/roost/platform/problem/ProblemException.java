package io.roost.platform.problem;

/**
 * A failure the caller should see as {@code application/problem+json}. {@code type} is a short,
 * stable slug (e.g. {@code "not-found"}); clients switch on it, so it never changes once published.
 */
public class ProblemException extends RuntimeException {

    private final int status;
    private final String type;
    private final String title;
    private final long retryAfterSeconds;

    public ProblemException(int status, String type, String title, String detail) {
        this(status, type, title, detail, 0);
    }

    private ProblemException(int status, String type, String title, String detail, long retryAfterSeconds) {
        super(detail);
        this.status = status;
        this.type = type;
        this.title = title;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** 429 with a {@code Retry-After} header: throttled, locked out, or asked again too soon. */
    public static ProblemException tooManyRequests(String type, String detail, long retryAfterSeconds) {
        return new ProblemException(429, type, "Too many requests", detail, Math.max(1, retryAfterSeconds));
    }

    /** 503: something this request needs is not configured or not reachable right now. */
    public static ProblemException unavailable(String type, String detail) {
        return new ProblemException(503, type, "Service unavailable", detail);
    }

    /** 503 with a {@code Retry-After} header: worth trying again after that many seconds. */
    public static ProblemException unavailable(String type, String detail, long retryAfterSeconds) {
        return new ProblemException(503, type, "Service unavailable", detail, Math.max(1, retryAfterSeconds));
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

    /** Seconds for a {@code Retry-After} header; 0 for none. */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    /** The body of the answer (its {@code Retry-After}, if any, is {@link #retryAfterSeconds()}). */
    public Problem toProblem() {
        return Problem.of(status, type, title, getMessage());
    }
}
