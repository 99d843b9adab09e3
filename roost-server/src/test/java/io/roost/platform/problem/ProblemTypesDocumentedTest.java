package io.roost.platform.problem;

import io.roost.RepoFiles;
import static java.util.stream.Collectors.toCollection;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every problem type and error-frame code the server can answer is named in the docs a caller
 * reads: {@code docs/api.md} (REST) or {@code docs/protocol.md} (the device WebSocket), as
 * {@code `type`}. A new code that is not documented fails the build.
 */
class ProblemTypesDocumentedTest {

    /** The ways the source names a code: the problem factories, a problem built by status, an error frame, a protocol violation. */
    static final Pattern CODE = Pattern.compile("(?:ProblemException\\.(?:badRequest|conflict|tooManyRequests|unavailable)\\("
            + "|new ProblemException\\(\\s*\\d{3}\\s*,|Problem\\.of\\(\\s*\\d{3}\\s*,|Frames\\.error\\(|violation\\()\\s*\"([a-z0-9-]+)\"");

    static final List<Path> DOCS = List.of(RepoFiles.of("docs/api.md"), RepoFiles.of("docs/protocol.md"));

    @Test
    void everyCodeInTheSourceIsDocumented() {
        Set<String> codes = codesIn(Path.of("src/main/java"));
        String docs = DOCS.stream().map(ProblemTypesDocumentedTest::read).reduce("", String::concat);
        Set<String> missing = codes.stream().filter(code -> !docs.contains("`" + code + "`")).collect(toCollection(TreeSet::new));
        assertTrue(codes.size() > 100, "the scan finds the codes (" + codes.size() + " found): has the pattern kept up with the source?");
        assertEquals(Set.of(), missing, "codes the server answers that " + DOCS + " do not name");
    }

    @Test
    void theScanFindsEachWayOfNamingACode() {
        String source = """
                throw ProblemException.badRequest("a-code", "…");
                throw ProblemException.tooManyRequests(
                        "b-code", "…", 5);
                new ProblemException(503, "c-code", "Service Unavailable", "…");
                Problem.of(413, "d-code", "…", "…");
                send(Frames.error("e-code", "…"));
                violation("f-code", "…");
                ProblemException.notFound("not-a-code");
                """;
        assertEquals(Set.of("a-code", "b-code", "c-code", "d-code", "e-code", "f-code"), codesIn(source));
    }

    static Set<String> codesIn(Path sources) {
        try (Stream<Path> files = Files.walk(sources)) {
            Set<String> codes = new TreeSet<>();
            files.filter(f -> f.toString().endsWith(".java")).forEach(f -> codes.addAll(codesIn(read(f))));
            return codes;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Set<String> codesIn(String source) {
        return CODE.matcher(source).results().map(m -> m.group(1)).collect(toCollection(TreeSet::new));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
