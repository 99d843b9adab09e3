package io.roost.it;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The deadlocks PostgreSQL detects while a test runs, read from its server log. The dev services
 * write that log to {@code devservices.log} in their directory, and the backend whose transaction
 * PostgreSQL aborts writes its {@code ERROR:  deadlock detected} there before the failed statement
 * returns to its client. So once a test's transactions have all ended, every deadlock among them
 * is in the log, and a check needs no wait; pg_stat_database's counter shows a deadlock only after
 * that backend's next idle statistics flush, up to 10 s later.
 */
public final class DeadlockLog {

    private static final Pattern DEADLOCK = Pattern.compile("\\[(\\d+)] ERROR:  deadlock detected");
    private static final Pattern MORE_OF_IT = Pattern.compile("\\[(\\d+)] (DETAIL|HINT|CONTEXT|STATEMENT):");

    private final Path log;
    private final long from;

    private DeadlockLog(Path log, long from) {
        this.log = log;
        this.from = from;
    }

    /** Watches from now on, from the test JVM ({@link Database#connect()}; see {@link #watch(Connection)}). */
    public static DeadlockLog watch() throws SQLException, IOException {
        try (Connection c = Database.connect()) {
            return watch(c);
        }
    }

    /** Watches from now on, on a connection of its own from {@code db} (in the container; see {@link #watch(Connection)}). */
    public static DeadlockLog watch(DataSource db) throws SQLException, IOException {
        try (Connection c = db.getConnection()) {
            return watch(c);
        }
    }

    /**
     * Watches from now on. First makes PostgreSQL log an error of its own through {@code c} (which
     * must not be in a transaction) and finds it in the log: so the file is this database's live
     * log, in the words matched here, and finding no deadlock later means none was detected.
     */
    public static DeadlockLog watch(Connection c) throws SQLException, IOException {
        Path log = location();
        DeadlockLog watch = new DeadlockLog(log, Files.size(log));
        String marker = "deadlock-log-marker-" + UUID.randomUUID();
        try (Statement st = c.createStatement()) {
            st.execute("DO $$ BEGIN RAISE EXCEPTION '" + marker + "'; END $$");
            throw new AssertionError("PostgreSQL did not raise the marker error");
        } catch (SQLException raised) {
            if (!"P0001".equals(raised.getSQLState())) {
                throw raised;
            }
        }
        if (!watch.text().contains("ERROR:  " + marker)) {
            throw new AssertionError(log + " is not where this PostgreSQL logs its errors: no line 'ERROR:  " + marker + "'");
        }
        return watch;
    }

    /** The dev services' log: -Droost.test.data in the test JVM, ROOST_TEST_DATA in the managed WildFly (pom.xml). */
    static Path location() {
        String dir = System.getProperty("roost.test.data", System.getenv("ROOST_TEST_DATA"));
        if (dir == null) {
            throw new AssertionError("neither -Droost.test.data nor ROOST_TEST_DATA names the dev services' directory");
        }
        return Path.of(dir, "devservices.log"); // DevServices.LOG
    }

    /** Every deadlock PostgreSQL detected since the watch began, each with the lines that explain it (processes, statement). */
    public List<String> detected() throws IOException {
        String[] lines = text().split("\n");
        List<String> deadlocks = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            Matcher m = DEADLOCK.matcher(lines[i]);
            if (m.find()) {
                StringBuilder report = new StringBuilder(lines[i]);
                for (int j = i + 1; j < lines.length && (lines[j].startsWith("\t") || sameBackend(lines[j], m.group(1))); j++) {
                    report.append('\n').append(lines[j]);
                }
                deadlocks.add(report.toString());
            }
        }
        return deadlocks;
    }

    private static boolean sameBackend(String line, String pid) {
        Matcher m = MORE_OF_IT.matcher(line);
        return m.find() && m.group(1).equals(pid);
    }

    /** What the log got since the watch began. */
    private String text() throws IOException {
        try (InputStream in = Files.newInputStream(log)) {
            in.skipNBytes(from);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
