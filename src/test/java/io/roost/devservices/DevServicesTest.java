package io.roost.devservices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dev services' PostgreSQL makes commits durable unless told otherwise (the tests' build says so), and logs to devservices.log. */
class DevServicesTest {

    @Test
    void postgresRunsWithDurableCommitsByDefault(@TempDir Path dir) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        DevServices.Options options = DevServices.Options.parse(new String[] {"start", "--dir=" + dir, "--db-port=" + port,
                "--no-rocketmq", "--classpath-file=" + Path.of("target/devservices.classpath").toAbsolutePath()});
        assertTrue(options.durableCommits());
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
    void noFsyncIsExplicitAndReachesTheServiceProcess() {
        DevServices.Options options = DevServices.Options.parse(new String[] {"start", "--dir=/tmp/x", "--db-port=1234",
                "--no-rocketmq", "--no-fsync", "--classpath-file=cp"});
        assertFalse(options.durableCommits());
        assertTrue(options.childArguments().contains("--no-fsync"));
    }
}
