package io.roost.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The suite's WildFly's own log file (text format): target/server/standalone/log/server.log. */
public final class ServerLog {

    public static final Path PATH = Path.of(System.getProperty("jboss.home",
            Path.of(System.getProperty("basedir", "."), "target", "server").toString()), "standalone", "log", "server.log");

    private ServerLog() {
    }

    public static String read() throws IOException {
        // ISO-8859-1 reads any bytes: a line cut by a rotation or a crash is still text to search
        return Files.readString(PATH, StandardCharsets.ISO_8859_1);
    }

    /** The log's lines that contain {@code text}. */
    public static List<String> linesWith(String text) throws IOException {
        return read().lines().filter(l -> l.contains(text)).toList();
    }
}
