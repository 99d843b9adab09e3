package io.roost.identity;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * What dev mode hands the developer that is a secret (a generated admin password, a verification code
 * no e-mail or SMS carried): a file only the server's user reads, under the server's data directory,
 * never the log, which may go to a collector.
 */
final class DevSecrets {

    private DevSecrets() {
    }

    /** Appends the line to the file {@code name}; its path, for the log line that says where to look. */
    static Path append(String name, String line) {
        Path dir = Path.of(System.getProperty("jboss.server.data.dir", System.getProperty("java.io.tmpdir")), "roost-dev");
        Path file = dir.resolve(name);
        try {
            Files.createDirectories(dir);
            if (!Files.exists(file)) {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            Files.writeString(file, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + file, e);
        }
    }
}
