package io.roost.platform.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.RepoFiles;
import jakarta.json.Json;
import jakarta.json.JsonValue;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * roost-client generates its REST client from a committed copy of the OpenAPI document (it is
 * built before the server, which generates the document). That copy must be what this build
 * generates, or the client would describe another API than the server serves.
 */
class CommittedOpenApiDocumentTest {

    private static final String REFRESH = "cp roost-server/target/openapi/openapi.json roost-client/src/main/openapi/roost.json";

    @Test
    void roostClientsCopyOfTheOpenApiDocumentIsTheOneTheServerGenerates() throws Exception {
        Path generated = Path.of(System.getProperty("roost.openapi.document", "target/openapi/openapi.json"));
        Path committed = RepoFiles.of("roost-client", "src", "main", "openapi", "roost.json");
        assertTrue(Files.exists(generated), generated + " is missing: the build generates it before the tests (process-classes)");
        assertEquals(read(generated), read(committed), "roost-client's copy of the OpenAPI document is not the one the server"
                + " generates; refresh it with `" + REFRESH + "` (after ./mvnw -pl roost-server process-classes) and build"
                + " roost-client again");
    }

    private static JsonValue read(Path file) throws Exception {
        try (Reader in = Files.newBufferedReader(file); var reader = Json.createReader(in)) {
            return reader.readValue();
        }
    }
}
