package io.roost.platform.ids;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.roost.platform.problem.ProblemException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class IdsTest {

    @Test
    void anIdIsAStringOfDigitsThatFitsALong() {
        assertEquals(734109223123456L, Ids.parse("734109223123456"));
        assertEquals(Long.MAX_VALUE, Ids.parse("9223372036854775807"));
        assertEquals(7L, Ids.parse("007"));
    }

    @Test
    void anythingElseIsAnInvalidId() {
        // "\u0661" is ARABIC-INDIC DIGIT ONE, which Long.parseLong would take as 1
        for (String bad : Arrays.asList(null, "", "-5", "+5", " 5", "5 ", "12abc", "1.5", "9223372036854775808", "\u0661")) {
            ProblemException e = assertThrows(ProblemException.class, () -> Ids.parse(bad), String.valueOf(bad));
            assertEquals(400, e.status(), bad);
            assertEquals("invalid-id", e.type(), bad);
        }
    }
}
