package io.roost.platform.problem;

import io.roost.platform.api.RequestIds;
import jakarta.json.bind.annotation.JsonbPropertyOrder;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * RFC 9457 problem details. {@code type} is {@code urn:roost:problem:<slug>}: stable, and not a
 * URL that pretends to resolve. {@code instance} is the request's id as {@code urn:roost:request:<id>}
 * ({@link ProblemInstances} puts it in every JAX-RS answer; the servlet filter and the webhook handler,
 * which answer before JAX-RS, call {@link #forRequest}).
 */
@JsonbPropertyOrder({"type", "title", "status", "detail", "instance", "errors"})
@Schema(description = "RFC 9457 problem details (application/problem+json)")
public record Problem(
        @Schema(required = true, description = "urn:roost:problem:<slug>; clients switch on it", example = "urn:roost:problem:not-found")
        String type,
        @Schema(required = true) String title,
        @Schema(required = true) int status,
        String detail,
        String instance,
        @Schema(description = "The invalid inputs (validation-failed)") List<FieldError> errors) {

    public static final String TYPE_PREFIX = "urn:roost:problem:";
    public static final MediaType MEDIA_TYPE = new MediaType("application", "problem+json");

    /** One invalid input: which field (a property path) and what is wrong with it. */
    public record FieldError(String field, String message) {
    }

    public static Problem of(int status, String slug, String title, String detail) {
        return new Problem(TYPE_PREFIX + slug, title, status, detail, null, null);
    }

    /** The problem as an answer to the request with this id ({@code instance}, see {@code RequestIds}); as it is without one. */
    public Problem forRequest(String requestId) {
        return requestId == null ? this : new Problem(type, title, status, detail, RequestIds.instance(requestId), errors);
    }

    public Problem withErrors(List<FieldError> fieldErrors) {
        return new Problem(type, title, status, detail, instance, fieldErrors);
    }

    public Response toResponse() {
        return Response.status(status).type(MEDIA_TYPE).entity(this).build();
    }
}
