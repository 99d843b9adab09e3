package io.roost.platform.problem;

import io.roost.platform.datasource.SqlStates;
import jakarta.json.bind.JsonbException;
import jakarta.persistence.OptimisticLockException;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.ConstraintViolationException;
import jakarta.ws.rs.ProcessingException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every failure leaves the REST layer as problem+json: never a stack trace, never an HTML page.
 * 4xx for what the caller got wrong; 503 service-unavailable with Retry-After when the database or
 * the broker is out of reach ({@link Unreachable}); 500 (with an id to find the log line) for the rest.
 */
public final class ProblemMappers {

    private static final Logger LOG = Logger.getLogger(ProblemMappers.class.getName());

    private ProblemMappers() {
    }

    /** Finds the first cause of the given type, or null. */
    static <T extends Throwable> T causeOf(Throwable t, Class<T> type) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (type.isInstance(c)) {
                return type.cast(c);
            }
        }
        return null;
    }

    /** Undertow stops reading past its hard limit; the JSON reader then sees a cut body. */
    static boolean tooLarge(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c.getClass().getSimpleName().equals("RequestTooBigException")) {
                return true;
            }
        }
        return false;
    }

    static Response malformedBody(Throwable t) {
        if (tooLarge(t)) {
            return Problem.of(413, "payload-too-large", "Payload too large",
                    "The request body is larger than this server accepts.").toResponse();
        }
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return Problem.of(400, "malformed-json", "Malformed request body",
                "The request body is not valid JSON for this operation: " + firstLine(root.getMessage())).toResponse();
    }

    static String firstLine(String s) {
        if (s == null) {
            return "unreadable input";
        }
        String line = s.lines().findFirst().orElse(s);
        return line.length() > 300 ? line.substring(0, 300) + "…" : line;
    }

    /**
     * A failure on our side: 503 with Retry-After when the database or the broker is out of reach,
     * else 500; but text the database refused to store (a NUL character) is the caller's: 400.
     */
    static Response serverFailure(Throwable t) {
        Optional<ProblemException> unavailable = Unreachable.problemFor(t);
        if (unavailable.isPresent()) {
            // Not SEVERE: during an outage every request would log its stack; the pool and health report it.
            LOG.log(Level.FINE, "answered 503: a dependency is out of reach", t);
            return new ProblemExceptionMapper().toResponse(unavailable.get());
        }
        java.sql.SQLException sql = causeOf(t, java.sql.SQLException.class);
        if (sql != null && SqlStates.unstorableText(sql.getSQLState())) {
            return Problem.of(400, "invalid-text", "Bad Request",
                    "The request holds text with a character that cannot be stored (NUL, U+0000).").toResponse();
        }
        String errorId = UUID.randomUUID().toString();
        LOG.log(Level.SEVERE, "Unhandled error " + errorId, t);
        return Problem.of(500, "internal-error", "Internal server error",
                "Something went wrong on our side; the server log has error id " + errorId + ".").toResponse();
    }

    @Provider
    public static class ProblemExceptionMapper implements ExceptionMapper<ProblemException> {
        @Override
        public Response toResponse(ProblemException e) {
            Response response = e.toProblem().toResponse();
            if (e.retryAfterSeconds() > 0) {
                response.getHeaders().putSingle("Retry-After", Long.toString(e.retryAfterSeconds()));
            }
            return response;
        }
    }

    @Provider
    public static class ConstraintViolationMapper implements ExceptionMapper<ConstraintViolationException> {
        @Override
        public Response toResponse(ConstraintViolationException e) {
            List<Problem.FieldError> errors = e.getConstraintViolations().stream()
                    .map(v -> new Problem.FieldError(fieldName(v), v.getMessage()))
                    .sorted(Comparator.comparing(Problem.FieldError::field))
                    .toList();
            return Problem.of(400, "validation-failed", "Validation failed",
                    errors.size() + " invalid input(s)").withErrors(errors).toResponse();
        }

        /** "create.arg0.username" → "username": the caller knows fields, not Java methods. */
        private static String fieldName(ConstraintViolation<?> v) {
            String path = v.getPropertyPath().toString().replaceAll("\\.?<[^>]*>", "");
            String[] parts = path.split("\\.");
            return parts.length > 2 ? String.join(".", java.util.Arrays.copyOfRange(parts, 2, parts.length))
                    : parts[parts.length - 1];
        }
    }

    @Provider
    public static class WebApplicationExceptionMapper implements ExceptionMapper<WebApplicationException> {

        /** RESTEasy's message for a query parameter it could not convert names the parameter so. */
        private static final Pattern UNCONVERTIBLE_QUERY = Pattern.compile("QueryParam\\(\"([A-Za-z0-9_.-]{1,64})\"\\) value is");

        @Override
        public Response toResponse(WebApplicationException e) {
            if (causeOf(e, JsonbException.class) != null) {
                return malformedBody(e);
            }
            int status = e.getResponse().getStatus();
            if (status >= 500) {
                return serverFailure(e);
            }
            Matcher query = status == 404 && e.getCause() != null && e.getMessage() != null ? UNCONVERTIBLE_QUERY.matcher(e.getMessage()) : null;
            if (query != null && query.find()) {
                // JAX-RS answers a query parameter it cannot convert with 404; the caller's value is at fault, not the path
                return Problem.of(400, "invalid-parameter", "Bad Request",
                        "Query parameter '" + query.group(1) + "' is not a value of its type (a whole number, for a limit).").toResponse();
            }
            String slug = switch (status) {
                case 400 -> "bad-request";
                case 401 -> "unauthorized";
                case 403 -> "forbidden";
                case 404 -> "not-found";
                case 405 -> "method-not-allowed";
                case 406 -> "not-acceptable";
                case 409 -> "conflict";
                case 413 -> "payload-too-large";
                case 415 -> "unsupported-media-type";
                default -> "http-" + status;
            };
            Response.StatusType info = e.getResponse().getStatusInfo();
            String detail = switch (status) {
                case 403 -> "You are authenticated but not allowed to do this.";
                case 404 -> "No such resource.";
                default -> firstLine(e.getMessage());
            };
            Response.ResponseBuilder builder = Response.fromResponse(
                    Problem.of(status, slug, info.getReasonPhrase(), detail).toResponse());
            // Keep Allow / WWW-Authenticate and the like from the original response.
            e.getResponse().getHeaders().forEach((k, v) -> {
                if (!k.equalsIgnoreCase("Content-Type") && !k.equalsIgnoreCase("Content-Length")) {
                    v.forEach(value -> builder.header(k, value));
                }
            });
            return builder.build();
        }
    }

    @Provider
    public static class JsonbExceptionMapper implements ExceptionMapper<JsonbException> {
        @Override
        public Response toResponse(JsonbException e) {
            return malformedBody(e);
        }
    }

    @Provider
    public static class ProcessingExceptionMapper implements ExceptionMapper<ProcessingException> {
        @Override
        public Response toResponse(ProcessingException e) {
            return malformedBody(e);
        }
    }

    @Provider
    public static class OptimisticLockMapper implements ExceptionMapper<OptimisticLockException> {
        @Override
        public Response toResponse(OptimisticLockException e) {
            return Problem.of(409, "concurrent-modification", "Conflict",
                    "The resource was changed concurrently; read it again and retry.").toResponse();
        }
    }

    @Provider
    public static class FallbackMapper implements ExceptionMapper<Throwable> {
        @Override
        public Response toResponse(Throwable t) {
            ProblemException problem = causeOf(t, ProblemException.class);
            if (problem != null) {
                return new ProblemExceptionMapper().toResponse(problem);
            }
            ConstraintViolationException violation = causeOf(t, ConstraintViolationException.class);
            if (violation != null) {
                return new ConstraintViolationMapper().toResponse(violation);
            }
            OptimisticLockException lock = causeOf(t, OptimisticLockException.class);
            if (lock != null) {
                return new OptimisticLockMapper().toResponse(lock);
            }
            if (tooLarge(t)) {
                return malformedBody(t);
            }
            return serverFailure(t);
        }
    }
}
