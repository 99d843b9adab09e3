package io.roost.it;

import static io.roost.it.Http.json;
import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.json.JsonObject;
import java.net.http.HttpResponse;

/** Roost's failures as a client sees them: RFC 9457 problems of type {@code urn:roost:problem:<slug>}. */
public final class Problems {

    private Problems() {
    }

    /** The response is this problem: its status, served as application/problem+json, with this type and status. */
    public static void assertProblem(HttpResponse<String> r, int status, String slug) {
        assertEquals(status, r.statusCode(), r.body());
        assertEquals("application/problem+json", r.headers().firstValue("Content-Type").orElse("").split(";")[0].trim(), r.body());
        JsonObject problem = json(r);
        assertEquals("urn:roost:problem:" + slug, problem.getString("type"), r.body());
        assertEquals(status, problem.getInt("status"), r.body());
    }
}
