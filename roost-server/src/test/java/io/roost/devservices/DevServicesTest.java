package io.roost.devservices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dev services' PostgreSQL makes commits durable unless told otherwise (the tests' build says
 * so), logs to devservices.log, and takes extra settings for diagnostics.
 */
class DevServicesTest {

    @Test
    void postgresRunsWithDurableCommitsByDefault(@TempDir Path dir) throws Exception {
        int port = freePort();
        DevServices.Options options = DevServices.Options.parse(new String[] {"start", "--dir=" + dir, "--db-port=" + port,
                "--no-rocketmq", "--classpath-file=" + Path.of("target/devservices.classpath").toAbsolutePath()});
        assertTrue(options.durableCommits());
        assertTrue(options.pgSettings().isEmpty());
        try {
            assertEquals(0, DevServices.start(options));
            assertEquals("fsync=on synchronous_commit=on", DevServicesProcess.commitSettings(port));
            // PostgreSQL's own log lines reach devservices.log
            assertTrue(Files.readString(dir.resolve(DevServices.LOG)).contains("database system is ready to accept connections"));
        } finally {
            DevServices.stop(dir, false);
        }
    }

    @Test
    void pgSettingsReachTheServerAndWinOverTheDevServicesOwn(@TempDir Path dir) throws Exception {
        int port = freePort();
        DevServices.Options options = DevServices.Options.parse(new String[] {"start", "--dir=" + dir, "--db-port=" + port,
                "--no-rocketmq", "--classpath-file=" + Path.of("target/devservices.classpath").toAbsolutePath(),
                "--pg-settings= shared_preload_libraries=pg_stat_statements  max_wal_size=2GB "});
        assertEquals(Map.of("shared_preload_libraries", "pg_stat_statements", "max_wal_size", "2GB"), options.pgSettings());
        assertTrue(options.childArguments().contains("--pg-settings=shared_preload_libraries=pg_stat_statements max_wal_size=2GB"),
                options.childArguments().toString());
        try {
            assertEquals(0, DevServices.start(options));
            assertEquals("pg_stat_statements", DevServicesProcess.setting(port, "shared_preload_libraries"));
            assertEquals("2GB", DevServicesProcess.setting(port, "max_wal_size"), "given, over the dev services' 4GB");
            assertEquals("on", DevServicesProcess.setting(port, "fsync"), "the rest as before");
        } finally {
            DevServices.stop(dir, false);
        }
    }

    @Test
    void aDiscardingStopKillsTheServicesAndLeavesNoPostgresRunning(@TempDir Path dir) throws Exception {
        int port = freePort();
        DevServices.Options options = DevServices.Options.parse(new String[] {"start", "--dir=" + dir, "--db-port=" + port,
                "--no-rocketmq", "--no-fsync", "--classpath-file=" + Path.of("target/devservices.classpath").toAbsolutePath()});
        assertTrue(DevServices.Options.parse(new String[] {"stop", "--dir=" + dir, "--discard"}).discard());
        assertFalse(DevServices.Options.parse(new String[] {"stop", "--dir=" + dir}).discard());
        try {
            assertEquals(0, DevServices.start(options));
            long pid = Long.parseLong(Files.readString(dir.resolve(DevServices.PID)).trim());
            assertFalse(DevServices.postmastersOf(dir.resolve(DevServices.PGDATA)).isEmpty(), "PostgreSQL runs");
            assertEquals(0, DevServices.discard(dir));
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "the dev services process is gone");
            assertTrue(DevServices.postmastersOf(dir.resolve(DevServices.PGDATA)).isEmpty(), "and its PostgreSQL with it");
            assertFalse(Files.exists(dir.resolve(DevServices.PID)));
            try (ServerSocket again = new ServerSocket(port)) {
                assertEquals(port, again.getLocalPort(), "the port is free again");
            }
        } finally {
            DevServices.stop(dir, false);
        }
    }

    @Test
    void malformedPgSettingsAreRefusedBeforeAnythingStarts() {
        for (String bad : List.of("max_wal_size", "=4GB", "max_wal_size=", "Max-Wal=1", "a=1;b=2 c")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DevServices.Options.parse(new String[] {
                    "start", "--dir=/tmp/x", "--db-port=1234", "--no-rocketmq", "--classpath-file=cp", "--pg-settings=" + bad}), bad);
            assertTrue(e.getMessage().contains("--pg-settings wants name=value pairs"), e.getMessage());
        }
    }

    @Test
    void noFsyncIsExplicitAndReachesTheServiceProcess() {
        DevServices.Options options = DevServices.Options.parse(new String[] {"start", "--dir=/tmp/x", "--db-port=1234",
                "--no-rocketmq", "--no-fsync", "--classpath-file=cp"});
        assertFalse(options.durableCommits());
        assertTrue(options.childArguments().contains("--no-fsync"));
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
