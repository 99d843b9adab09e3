package io.roost.client.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;

/**
 * A failure Roost answered with {@code application/problem+json}: its {@code type}
 * ({@code urn:roost:problem:<slug>}, stable, documented in docs/api.md), {@code status},
 * {@code title} and {@code detail}, and the whole problem document (for {@code errors} of a
 * {@code validation-failed}, an error id, …). An answer that is no problem (a proxy's page, say)
 * has type {@code about:blank} and its body as detail.
 */
public class RoostProblemException extends RuntimeException {

    public static final String PREFIX = "urn:roost:problem:";
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final String type;
    private final int status;
    private final String title;
    private final String detail;
    private final JsonNode problem;

    public RoostProblemException(String type, int status, String title, String detail, JsonNode problem) {
        super(status + " " + type + (detail == null ? "" : ": " + detail));
        this.type = type;
        this.status = status;
        this.title = title;
        this.detail = detail;
        this.problem = problem == null ? NullNode.getInstance() : problem;
    }

    /** The problem in an answer of {@code status} with {@code body}. */
    public static RoostProblemException of(int status, String body) {
        JsonNode node = null;
        try {
            node = body == null || body.isBlank() ? null : MAPPER.readTree(body);
        } catch (Exception e) {
            // not JSON: described below as about:blank
        }
        if (node == null || !node.isObject() || !node.path("type").isTextual()) {
            return new RoostProblemException("about:blank", status, null, body, node);
        }
        return new RoostProblemException(node.get("type").asText(), node.path("status").asInt(status),
                text(node, "title"), text(node, "detail"), node);
    }

    private static String text(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    public String type() {
        return type;
    }

    /** The type's last part, e.g. {@code not-found} for {@code urn:roost:problem:not-found}; the type itself if it is no Roost type. */
    public String slug() {
        return type.startsWith(PREFIX) ? type.substring(PREFIX.length()) : type;
    }

    public int status() {
        return status;
    }

    public String title() {
        return title;
    }

    public String detail() {
        return detail;
    }

    /** The problem document as served (a NullNode if the answer had none). */
    public JsonNode problem() {
        return problem;
    }
}
