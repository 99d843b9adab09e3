package io.roost.it;

import static io.roost.it.Http.ADMIN;
import static io.roost.it.Http.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.client.rest.invoker.ApiClient;
import io.roost.client.rest.invoker.ApiException;
import io.roost.client.rest.api.AdminApi;
import io.roost.client.rest.api.IdentityApi;
import io.roost.client.rest.api.PlatformApi;
import io.roost.client.rest.model.AccountView;
import io.roost.client.rest.model.PageAccountView;
import io.roost.client.rest.model.Problem;
import io.roost.client.rest.model.RegistrationRequest;
import io.roost.client.rest.model.RegistrationResult;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonValue;
import java.io.Reader;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document: the server serves the document the build generated the test client from
 * (target/openapi), it says what the server does (who may call what, what each failure looks like),
 * and the client generated from it works against the server.
 */
class OpenApiIT extends DeployedRoost {

    /** What anyone may call: health, the ways in and the operator sign-in (issue 22). */
    private static final Set<String> PUBLIC = Set.of("getHealth", "getServing", "register", "login", "resetPassword", "recoverOwnAccount",
            "signInOperator", "getOperatorSession", "signOutOperator", "downloadMediaByLink");
    /** The NCS webhook: no account, Agora's signature headers instead. */
    private static final String WEBHOOK = "/api/v1/webhooks/agora";
    /** One empty requirement, which any request meets (the form of security: [] that WildFly's /openapi keeps). */
    private static final JsonValue ANONYMOUS = Json.createArrayBuilder().add(JsonValue.EMPTY_JSON_OBJECT).build();
    private static final String PROBLEM_REF = "#/components/schemas/Problem";
    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options", "trace");

    /** One operation of the document. */
    record Op(String path, String method, JsonObject operation) {
        String id() {
            return operation.getString("operationId", method + " " + path);
        }

        JsonObject responses() {
            return operation.getJsonObject("responses");
        }

        @Override
        public String toString() {
            return method.toUpperCase() + " " + path + " (" + id() + ")";
        }
    }

    private JsonObject served() throws Exception {
        HttpResponse<String> response = http().get("openapi?format=JSON", null);
        assertEquals(200, response.statusCode(), response.body());
        return json(response);
    }

    /** The document the build generated (smallrye-open-api-maven-plugin) and made the test client from. */
    private static Path builtPath() {
        return Path.of(System.getProperty("roost.openapi.document", "target/openapi/openapi.json"));
    }

    private static JsonObject built() throws Exception {
        try (Reader in = Files.newBufferedReader(builtPath()); JsonReader reader = Json.createReader(in)) {
            return reader.readObject();
        }
    }

    static List<Op> operations(JsonObject document) {
        List<Op> ops = new ArrayList<>();
        document.getJsonObject("paths").forEach((path, item) -> item.asJsonObject().forEach((method, operation) -> {
            if (METHODS.contains(method)) {
                ops.add(new Op(path, method, operation.asJsonObject()));
            }
        }));
        assertFalse(ops.isEmpty(), "the document has no operations");
        return ops;
    }

    @Test
    void theServedDocumentIsTheOneTheClientWasGeneratedFrom() throws Exception {
        JsonObject served = served();
        JsonObject built = built();
        Files.writeString(builtPath().resolveSibling("served.json"), served.toString()); // to diff when this fails
        // WildFly adds its addresses (servers) and empty externalDocs and info.contact; the rest is the same document.
        List<String> differences = new ArrayList<>();
        for (String key : served.keySet()) {
            if (!built.containsKey(key) && !key.equals("servers") && !served.get(key).equals(JsonValue.EMPTY_JSON_OBJECT)) {
                differences.add(key);
            }
        }
        for (String key : built.keySet()) {
            JsonValue mine = key.equals("info") ? withoutEmptyContact(served.getJsonObject(key)) : served.get(key);
            if (!key.equals("paths") && !built.get(key).equals(mine)) {
                differences.add(key);
            }
        }
        Map<String, JsonObject> servedOps = operations(served).stream().collect(Collectors.toMap(Op::toString, Op::operation));
        for (Op op : operations(built)) {
            if (!op.operation().equals(servedOps.remove(op.toString()))) {
                differences.add(op.toString());
            }
        }
        differences.addAll(servedOps.keySet());
        assertEquals(List.of(), differences, "served and built documents differ (target/openapi/served.json, openapi.json)");
    }

    private static JsonObject withoutEmptyContact(JsonObject info) {
        return info != null && JsonValue.EMPTY_JSON_OBJECT.equals(info.get("contact"))
                ? Json.createObjectBuilder(info).remove("contact").build() : info;
    }

    @Test
    void publicOperationsNeedNoCredentialsAndTheWebhookItsSignature() throws Exception {
        assertPublicOperationsAndTheWebhookSignature(served());
    }

    static void assertPublicOperationsAndTheWebhookSignature(JsonObject document) {
        Set<String> declaredPublic = new TreeSet<>();
        for (Op op : operations(document)) {
            if (op.path().equals(WEBHOOK)) {
                assertEquals(Json.createArrayBuilder().add(Json.createObjectBuilder().add("agoraSignature", JsonValue.EMPTY_JSON_ARRAY))
                        .add(Json.createObjectBuilder().add("agoraSignatureV2", JsonValue.EMPTY_JSON_ARRAY)).build(),
                        op.operation().get("security"), op.toString());
            } else if (ANONYMOUS.equals(op.operation().get("security"))) {
                declaredPublic.add(op.id());
            } else {
                // No security of its own: the document's Basic or bearer applies.
                assertFalse(op.operation().containsKey("security"), op + ": " + op.operation().get("security"));
            }
        }
        assertEquals(new TreeSet<>(PUBLIC), declaredPublic);
        JsonObject schemes = document.getJsonObject("components").getJsonObject("securitySchemes");
        assertApiKeyHeader(schemes.getJsonObject("agoraSignature"), "Agora-Signature");
        assertApiKeyHeader(schemes.getJsonObject("agoraSignatureV2"), "Agora-Signature-V2");
        assertEquals("basic", schemes.getJsonObject("basic").getString("scheme"));
        assertEquals("bearer", schemes.getJsonObject("bearer").getString("scheme"));
        assertEquals(2, document.getJsonArray("security").size(), "Basic or bearer by default");
    }

    private static void assertApiKeyHeader(JsonObject scheme, String header) {
        assertNotNull(scheme, header + " scheme");
        assertEquals("apiKey", scheme.getString("type"));
        assertEquals("header", scheme.getString("in"));
        assertEquals(header, scheme.getString("name"));
    }

    /**
     * The document's security is what the server enforces: every operation it does not declare
     * public refuses a caller without credentials (401 missing-credentials, before anything runs),
     * and none it declares public does.
     */
    @Test
    void theServerEnforcesWhatTheDocumentDeclares() throws Exception {
        Http http = http();
        for (Op op : operations(served())) {
            String path = op.path().substring(1).replaceAll("\\{[^}]+}", "1");
            HttpResponse<String> response = switch (op.method()) {
                case "get" -> http.get(path, null);
                case "post" -> http.post(path, null, "{}");
                case "put" -> http.put(path, null, "{}");
                case "patch" -> http.patch(path, null, "{}");
                case "delete" -> http.delete(path, null);
                default -> throw new AssertionError("no such method in the API: " + op);
            };
            boolean refused = response.statusCode() == 401 && response.body().contains("urn:roost:problem:missing-credentials");
            boolean declaredPublic = op.operation().containsKey("security");
            assertEquals(!declaredPublic, refused, op + " -> " + response.statusCode() + " " + response.body());
        }
    }

    /** Two of the failures the document gives every operation that reads a number or a body. */
    @Test
    void theFailuresTheDocumentAddsEverywhereHappen() throws Exception {
        Http http = http();
        HttpResponse<String> notANumber = http.get("api/v1/users?q=abc&limit=ten", ADMIN);
        assertEquals(400, notANumber.statusCode(), notANumber.body());
        assertEquals("urn:roost:problem:invalid-parameter", json(notANumber).getString("type"));
        HttpResponse<String> notJson = http.post("api/v1/auth/tokens", ADMIN, "text/plain", "{}");
        assertEquals(415, notJson.statusCode(), notJson.body());
        assertEquals("urn:roost:problem:unsupported-media-type", json(notJson).getString("type"));
    }

    @Test
    void everyOperationHasAStableIdAndATagOfItsModule() throws Exception {
        assertOperationIdsAndTags(served());
    }

    static void assertOperationIdsAndTags(JsonObject document) {
        Set<String> tags = document.getJsonArray("tags").stream().map(t -> t.asJsonObject().getString("name")).collect(Collectors.toSet());
        Set<String> ids = new HashSet<>();
        for (Op op : operations(document)) {
            String id = op.operation().getString("operationId", null);
            assertNotNull(id, op + " has no operationId");
            assertTrue(id.matches("[a-z][a-zA-Z0-9]*"), op + ": operationId not camelCase");
            assertTrue(ids.add(id), op + ": operationId used twice");
            assertEquals(1, op.operation().getJsonArray("tags") == null ? 0 : op.operation().getJsonArray("tags").size(),
                    op + ": one tag");
            assertTrue(tags.contains(op.operation().getJsonArray("tags").getString(0)), op + ": tag not declared");
        }
    }

    /**
     * Every failure an operation declares is a problem+json body of the shared Problem schema (the
     * health probe's 503 too, with its report as extra members), and the responses that follow from the platform
     * are there: 401 where credentials are needed, 400 and 413 where a body is read, Retry-After on 429.
     */
    @Test
    void everyFailureIsAProblemAndEverySuccessHasItsSchema() throws Exception {
        assertProblemsAndSuccesses(served());
    }

    static void assertProblemsAndSuccesses(JsonObject document) {
        JsonObject problem = document.getJsonObject("components").getJsonObject("schemas").getJsonObject("Problem");
        assertNotNull(problem, "components.schemas.Problem");
        assertEquals(Arrays.stream(io.roost.platform.problem.Problem.class.getRecordComponents()).map(c -> c.getName())
                .collect(Collectors.toSet()), problem.getJsonObject("properties").keySet());
        for (Op op : operations(document)) {
            JsonObject responses = op.responses();
            assertTrue(responses.keySet().stream().anyMatch(c -> c.startsWith("2")), op + " declares no success");
            for (String code : responses.keySet()) {
                JsonObject response = responses.getJsonObject(code);
                if (code.startsWith("2") && !code.equals("204") && response.containsKey("content")) {
                    response.getJsonObject("content").forEach((type, media) ->
                            assertFalse(media.asJsonObject().getJsonObject("schema").isEmpty(), op + " " + code + ": empty schema"));
                }
                if (!code.startsWith("4") && !code.startsWith("5")) {
                    continue;
                }
                assertNotNull(response.getJsonObject("content"), op + " " + code + " has no body");
                assertEquals(Set.of("application/problem+json"), response.getJsonObject("content").keySet(), op + " " + code);
                assertEquals(PROBLEM_REF, response.getJsonObject("content").getJsonObject("application/problem+json")
                        .getJsonObject("schema").getString("$ref", null), op + " " + code);
                assertFalse(response.getString("description", "").isBlank(), op + " " + code + ": which problem types?");
                if (code.equals("429")) {
                    assertTrue(response.getJsonObject("headers").containsKey("Retry-After"), op + " 429");
                }
            }
            if (!op.operation().containsKey("security")) {
                assertTrue(responses.containsKey("401"), op + " needs credentials: 401");
            }
            if (op.operation().containsKey("requestBody")) {
                assertTrue(responses.containsKey("400") && responses.containsKey("413"), op + " reads a body: 400, 413");
            }
        }
    }

    /** Three operations through the generated client: a public one, one as a user (bearer), one as the admin (Basic). */
    @Test
    void theGeneratedClientWorksAgainstTheServer() throws Exception {
        String name = "oas-" + UUID.randomUUID().toString().substring(0, 10);
        RegistrationResult registered = new IdentityApi(client(null)).register(new RegistrationRequest().username(name)
                .password(TestUsers.PASSWORD).deviceType("web").deviceId("openapi-it"));
        assertEquals(name, registered.getAccount().getUsername());
        String token = registered.getToken().getToken();
        assertNotNull(token);

        IdentityApi asUser = new IdentityApi(client(Http.bearer(token)));
        AccountView me = asUser.getMyAccount();
        assertEquals(registered.getAccount().getId(), me.getId());
        assertEquals(Set.of("user"), me.getRoles());

        PageAccountView found = new AdminApi(client(ADMIN)).searchAccounts(null, 10, name);
        assertEquals(List.of(me.getId()), found.getItems().stream().map(AccountView::getId).toList());

        // A failure reaches the client as a problem it can read with the document's Problem schema.
        ApiException refused = assertThrows(ApiException.class,
                () -> new AdminApi(client(Http.bearer(token))).searchAccounts(null, 10, name));
        assertEquals(403, refused.getCode());
        Problem problem = ApiClient.createDefaultObjectMapper().readValue(refused.getResponseBody(), Problem.class);
        assertEquals("urn:roost:problem:forbidden", problem.getType());
        assertEquals(403, problem.getStatus().intValue());
        assertTrue(new PlatformApi(client(null)).getHealth().getUp());
    }

    private ApiClient client(String authorization) throws Exception {
        ApiClient client = new ApiClient();
        String base = baseUrl.toURI().toString();
        client.updateBaseUri(base.endsWith("/") ? base.substring(0, base.length() - 1) : base);
        if (authorization != null) {
            client.setRequestInterceptor(request -> request.header("Authorization", authorization));
        }
        return client;
    }
}
