package io.roost.platform.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class RequestIdsTest {

    @Test
    void aSaneIdIsKeptAsItIs() {
        for (String sane : new String[] {"abc", "it-3f2a0c9e-1b7d-4c1e-9f00-0a1b2c3d4e5f", "Root=1-67891233-abc/def+g.h_i:j", "a".repeat(128)}) {
            assertEquals(sane, RequestIds.accept(sane));
        }
    }

    @Test
    void anythingElseIsReplacedByANewId() {
        for (String insane : new String[] {null, "", "a".repeat(129), "two words", "line\nbreak", "quote\"d", "semi;colon", "<b>",
                "tab\t", "ünïcode"}) {
            String id = RequestIds.accept(insane);
            assertTrue(id.matches("[0-9a-f]{32}"), insane + " → " + id);
        }
        assertNotEquals(RequestIds.accept(null), RequestIds.accept(null));
    }

    @Test
    void aProblemsInstanceNamesTheRequest() {
        assertEquals("urn:roost:request:abc", RequestIds.instance("abc"));
        assertNull(RequestIds.instance(null));
        assertEquals(Arrays.asList("urn:roost:request:abc", null), Arrays.asList(
                io.roost.platform.problem.Problem.of(400, "x", "X", "x").forRequest("abc").instance(),
                io.roost.platform.problem.Problem.of(400, "x", "X", "x").forRequest(null).instance()));
    }
}
