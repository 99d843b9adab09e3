package io.roost.platform.api;

import io.roost.platform.problem.Problem;
import io.roost.platform.security.PublicPaths;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.PathItem.HttpMethod;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.parameters.Parameter;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;
import org.eclipse.microprofile.openapi.models.security.SecurityRequirement;

/**
 * What holds for every operation of the API, added to the OpenAPI document in one place instead of
 * on each resource method (registered as {@code mp.openapi.filter} in microprofile-config.properties;
 * the build generates the same document with the same filter). Resource methods declare their
 * success responses and the problems only they can answer; this filter adds the ones that follow
 * from the platform:
 *
 * <ul>
 * <li>{@link PublicPaths public} operations need no credentials ({@code security: [{}]}, unless a
 *     webhook declares its signature); the others may answer 401
 *     ({@link io.roost.platform.security.AuthenticationFilter}).
 * <li>Changes sent with the admin console's session cookie need its CSRF header (403).
 * <li>A request body may be malformed or invalid (400), too large (413, {@link RequestSizeLimit}) or of
 *     another media type (415).
 * <li>A number or boolean that does not convert: 400 {@code invalid-parameter} in the query
 *     ({@link io.roost.platform.problem.ProblemMappers}), 404 in the path (JAX-RS's rule).
 * <li>Any operation may fail on our side (500 with an error id).
 * <li>Every 4xx and 5xx is a problem+json body ({@link Problem}), every 429 has Retry-After.
 * </ul>
 *
 * Descriptions of problem responses list the problem types (the slug after {@code urn:roost:problem:}).
 */
public class ApiDocumentFilter implements OASFilter {

    /** The problem+json schema, declared from {@link Problem} on {@link RoostApplication}. */
    public static final String PROBLEM_SCHEMA = "Problem";

    // Not MediaType.toString(): that needs a JAX-RS runtime, which the build's generator does not have.
    private static final String PROBLEM_MEDIA_TYPE = Problem.MEDIA_TYPE.getType() + "/" + Problem.MEDIA_TYPE.getSubtype();
    private static final Set<HttpMethod> SAFE = Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS);
    private static final Set<Schema.SchemaType> CONVERTED = Set.of(Schema.SchemaType.INTEGER, Schema.SchemaType.NUMBER,
            Schema.SchemaType.BOOLEAN);

    @Override
    public void filterOpenAPI(OpenAPI document) {
        if (document.getPaths() == null || document.getPaths().getPathItems() == null) {
            return;
        }
        document.getPaths().getPathItems().forEach((path, item) -> {
            if (item.getOperations() != null) {
                item.getOperations().forEach((method, operation) -> describe(path, item, method, operation));
            }
        });
    }

    private static void describe(String path, PathItem item, HttpMethod method, Operation operation) {
        APIResponses responses = operation.getResponses() != null ? operation.getResponses() : OASFactory.createAPIResponses();
        operation.setResponses(responses);
        if (PublicPaths.isPublic(path)) {
            if (operation.getSecurity() == null) { // a webhook declares its signature instead
                operation.setSecurity(List.of(anonymous()));
            }
        } else {
            problem(responses, "401", "missing-credentials, malformed-credentials, invalid-credentials",
                    "no or wrong Basic or bearer credentials");
            responses.getAPIResponse("401").addHeader("WWW-Authenticate", OASFactory.createHeader()
                    .description("The schemes this API accepts: Basic and Bearer")
                    .schema(OASFactory.createSchema().addType(Schema.SchemaType.STRING)));
        }
        if (PublicPaths.isWebhook(path)) {
            // Answered in front of the servlet chain (no session cookie, no JAX-RS) and described in
            // META-INF/openapi.yaml, whose requestBody.required WildFly's copy would drop (see anonymous()).
            if (operation.getRequestBody() != null) {
                operation.getRequestBody().setRequired(true);
            }
        } else {
            boolean signIn = path.equals(PublicPaths.OPERATOR_SIGN_IN) && method == HttpMethod.POST;
            if (!SAFE.contains(method) && !signIn) {
                problem(responses, "403", "csrf-token-missing",
                        "sent with the admin console's session cookie but without its CSRF header");
            }
            if (operation.getRequestBody() != null) {
                problem(responses, "400", "malformed-json, validation-failed", "the request body");
                problem(responses, "413", "payload-too-large", "the request body");
                problem(responses, "415", "unsupported-media-type", "the request body");
            }
            List<Parameter> parameters = Stream.concat(parameters(item.getParameters()), parameters(operation.getParameters())).toList();
            if (parameters.stream().anyMatch(p -> converted(p, Parameter.In.QUERY))) {
                problem(responses, "400", "invalid-parameter", "when a number or boolean in the query is not one");
            }
            if (parameters.stream().anyMatch(p -> converted(p, Parameter.In.PATH))) {
                problem(responses, "404", "not-found", "when a number or boolean in the path is not one");
            }
        }
        problem(responses, "500", "internal-error", "the server log has the error id");
        problemBodies(responses);
    }

    /**
     * An empty requirement: any request meets it, so the operation needs no credentials. Not an
     * empty list (security: []), which says the same: WildFly 39 serves /openapi from a copy of the
     * model made through its getters, which keeps only non-empty security lists (and does not see
     * the requestBody.required of a static file).
     */
    private static SecurityRequirement anonymous() {
        return OASFactory.createSecurityRequirement();
    }

    /** Every failure is problem+json; a 429 also says when to try again. Responses end up in status order. */
    private static void problemBodies(APIResponses responses) {
        responses.setAPIResponses(new TreeMap<>(responses.getAPIResponses()));
        for (Map.Entry<String, APIResponse> e : responses.getAPIResponses().entrySet()) {
            if (isFailure(e.getKey()) && e.getValue().getContent() == null) {
                e.getValue().setContent(OASFactory.createContent().addMediaType(PROBLEM_MEDIA_TYPE,
                        OASFactory.createMediaType().schema(OASFactory.createSchema().ref(PROBLEM_SCHEMA))));
            }
            if (e.getKey().equals("429")) {
                e.getValue().addHeader("Retry-After", OASFactory.createHeader().description("Seconds to wait before trying again")
                        .schema(OASFactory.createSchema().addType(Schema.SchemaType.INTEGER)));
            }
        }
    }

    /**
     * Declares that the operation may answer {@code status} with these problem types (comma-separated
     * slugs) for this reason, next to what the resource method declared for that status.
     */
    private static void problem(APIResponses responses, String status, String types, String reason) {
        APIResponse response = responses.getAPIResponse(status);
        String declared = response == null ? null : response.getDescription();
        if (response == null) {
            responses.addAPIResponse(status, OASFactory.createAPIResponse().description(types + ": " + reason));
        } else if (declared == null || declared.isBlank()) {
            response.setDescription(types + ": " + reason);
        } else if (declared.startsWith(types)) {
            response.setDescription(declared + "; also " + reason); // "not-found: no such account; also when ..."
        } else {
            response.setDescription(declared + "; " + types + ": " + reason);
        }
    }

    private static boolean isFailure(String status) {
        return status.length() == 3 && (status.charAt(0) == '4' || status.charAt(0) == '5');
    }

    private static Stream<Parameter> parameters(List<Parameter> parameters) {
        return parameters == null ? Stream.empty() : parameters.stream();
    }

    /** A number or boolean parameter in {@code in}, which JAX-RS converts before the method runs. */
    private static boolean converted(Parameter p, Parameter.In in) {
        return p.getIn() == in && p.getSchema() != null
                && p.getSchema().getType() != null && p.getSchema().getType().stream().anyMatch(CONVERTED::contains);
    }
}
