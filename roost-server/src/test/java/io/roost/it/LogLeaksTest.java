package io.roost.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link LogLeaks}, the matcher behind {@link LogLeakIT}: it must find what is there and nothing else. */
class LogLeaksTest {

    @Test
    void findsEverySecretThatIsThereWhereverItIs() {
        LogLeaks leaks = new LogLeaks(List.of("tok-AAAA1111", "tok-AAAA2222", "hello world, it is me", "absent-secret"));
        String log = "tok-AAAA1111 at the start\nDEBUG body=hello world, it is me\n... and at the end tok-AAAA2222";
        assertEquals(List.of("tok-AAAA1111", "hello world, it is me", "tok-AAAA2222"), leaks.in(log));
    }

    @Test
    void findsNothingInACleanLogNorInAPrefixOfASecret() {
        LogLeaks leaks = new LogLeaks(List.of("tok-AAAA1111", "bearer-0123456789"));
        assertEquals(List.of(), leaks.in("tok-AAAA111 tok-AAAA111x bearer-012345678 [tok-AAAA"));
        assertEquals(List.of(), leaks.in(""));
        assertEquals(List.of(), leaks.in("tok"));
    }

    @Test
    void aSecretIsFoundOnceThoughItOccursTwiceAndOverlappingOnesBoth() {
        LogLeaks leaks = new LogLeaks(List.of("abcdabcdXY", "cdabcdXYZZ"));
        assertEquals(List.of("abcdabcdXY", "cdabcdXYZZ"), leaks.in("--abcdabcdXYZZ-- abcdabcdXY"));
    }

    @Test
    void valuesShorterThanTheMinimumAreNotLookedFor() {
        assertEquals(List.of("8 chars!"), new LogLeaks(List.of("7 chars", "8 chars!")).in("7 chars, 8 chars!"));
    }
}
