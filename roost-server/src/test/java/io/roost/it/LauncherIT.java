package io.roost.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/roost} as a user runs it: start, the banner's Agora secret and webhook command (pasted
 * as printed), a crash of WildFly, a start of two nodes behind HAProxy right after it, the crash of
 * one of them (the other keeps serving through the load balancer), stop. Runs beside the suite's
 * managed WildFly (which uses target/server itself) on its own ports and data directory, with the
 * packaged build ({@code ROOST_SKIP_BUILD=1}).
 */
class LauncherIT {

    private static final Path ROOT = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize();
    private static final Path WORK = ROOT.resolve("target/launcher-it");
    private static final Path DATA = WORK.resolve("data");
    private static final int PORT_OFFSET = Integer.getInteger("roost.test.launcher.port.offset", 700);
    private static final int LB_PORT = Integer.getInteger("roost.test.launcher.lb.port", 8700);
    private static final Map<String, String> LAUNCHER_ENV = Map.of(
            "ROOST_DATA_DIR", DATA.toString(),
            "ROOST_PORT_OFFSET", Integer.toString(PORT_OFFSET),
            "ROOST_LB_PORT", Integer.toString(LB_PORT),
            "ROOST_DEV_DB_PORT", Integer.getInteger("roost.test.launcher.db.port", 55932).toString(),
            "ROOST_DEV_NAMESRV_PORT", Integer.getInteger("roost.test.launcher.namesrv.port", 20376).toString(),
            "ROOST_DEV_BROKER_PORT", Integer.getInteger("roost.test.launcher.broker.port", 11431).toString(),
            "ROOST_SKIP_BUILD", "1",
            // bin/roost's heap and collector with the test nodes' JIT (ClusterNodes.TEST_JIT): they live minutes
            "JBOSS_JAVA_SIZING", "-Xms64m -Xmx512m " + io.roost.it.cluster.ClusterNodes.TEST_JIT);
    private static final String BANNER_END = "Ctrl-C (or bin/roost stop) stops Roost and the dev services.";
    private static final Duration UP_TIMEOUT = Duration.ofMinutes(4);

    private final List<Process> launchers = new ArrayList<>();

    @Test
    void startsPostsRecoversFromAWildFlyCrashRunsTwoNodesBehindHaproxyAndStopsEverything() throws Exception {
        run("stop"); // whatever an aborted earlier run left, before its data directory goes
        deleteRecursively(WORK);
        Files.createDirectories(WORK);
        try {
            Process first = start("start-1", "start");
            String banner = awaitBanner(first, "start-1");
            assertFalse(banner.toLowerCase().contains("placeholder"), banner);
            // the web pages, next to each other: the admin console, the API explorer, the web chat (which answers)
            String node = "http://127.0.0.1:" + (8080 + PORT_OFFSET);
            for (String page : List.of("Admin UI       " + node + "/admin/", "API explorer   " + node + "/api-docs/",
                    "Web chat       " + node + "/chat/")) {
                assertTrue(banner.contains("  " + page + "\n"), page + " in\n" + banner);
            }
            var chat = new Http(new URL(node + "/")).get("chat/", null);
            assertEquals(200, chat.statusCode(), chat.body());
            assertTrue(chat.body().contains("<title>Roost chat</title>"), chat.body());

            Path secretFile = DATA.resolve("agora-secret");
            String secret = Files.readString(secretFile).strip();
            assertTrue(secret.matches("[0-9a-f]{64}"), secret);
            assertEquals(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE),
                    Files.getPosixFilePermissions(secretFile));
            assertTrue(banner.contains(secret), banner);

            String post = postCommand(banner);
            assertTrue(post.contains("openssl dgst -sha256 -hmac"), post);
            assertTrue(bash(post).strip().endsWith("HTTP 200"), post);
            // The 200 comes from the signature: the same command with another secret is refused.
            assertTrue(bash(post.replace(secret, "not-" + secret)).strip().endsWith("HTTP 401"), post);

            long wildfly = pidIn(DATA.resolve("node-0/wildfly.pid"));
            ProcessHandle jvm = ProcessHandle.of(wildfly).orElseThrow();
            ProcessHandle wrapper = jvm.parent().orElseThrow();
            assertTrue(wrapper.info().commandLine().orElse("").contains("standalone.sh"), wrapper.info().toString());
            long firstDevServices = pidIn(DATA.resolve("devservices/devservices.pid"));
            long firstPostmaster = postmasterPid();
            // standalone.sh first, so that nothing reaps the killed JVM at once: its pid stays a
            // zombie until init gets to it (about 2 s on the development machine), and the old
            // launcher took a zombie for a running Roost.
            kill(wrapper);
            kill(jvm);

            // at once: the first launcher is still cleaning up
            Process second = start("start-2", "start", "--nodes", "2");
            String secondBanner = awaitBanner(second, "start-2");
            assertTrue(secondBanner.contains(secret), "the secret is kept across starts: " + secondBanner);
            assertEquals(secret, Files.readString(secretFile).strip());
            // one URL, the load balancer's: the pasted command goes through HAProxy, and so does a device
            String lb = "http://127.0.0.1:" + LB_PORT;
            assertTrue(secondBanner.contains("URL            " + lb + "\n"), secondBanner);
            assertTrue(postCommand(secondBanner).contains(lb + "/api/v1/webhooks/agora"), secondBanner);
            assertTrue(bash(postCommand(secondBanner)).strip().endsWith("HTTP 200"), secondBanner);
            WsDevice.hello(new URL(lb + "/"), "web", "launcher-it").bye();

            assertTrue(first.waitFor(1, TimeUnit.MINUTES), "the first launcher noticed the crash and exited");
            assertNotEquals(0, first.exitValue(), "a crash is a failure: " + log("start-1"));
            assertTrue(log("start-1").contains("WildFly exited unexpectedly"), log("start-1"));

            long secondWildfly = pidIn(DATA.resolve("node-0/wildfly.pid"));
            long otherNode = pidIn(DATA.resolve("node-1/wildfly.pid"));
            long haproxy = pidIn(DATA.resolve("haproxy.pid"));
            assertNotEquals(wildfly, secondWildfly);
            assertEquals(second.pid(), ProcessHandle.of(haproxy).flatMap(ProcessHandle::parent).orElseThrow().pid(), "HAProxy is the launcher's child");
            List<Long> started = new ArrayList<>(List.of(wildfly, firstDevServices, firstPostmaster, secondWildfly, otherNode,
                    haproxy, pidIn(DATA.resolve("devservices/devservices.pid")), postmasterPid()));
            started.add(ProcessHandle.of(secondWildfly).flatMap(ProcessHandle::parent).orElseThrow().pid());

            // A node dies: the launcher says so and stays, the other node serves through the load balancer.
            kill(ProcessHandle.of(otherNode).orElseThrow());
            Wait.until("the launcher reports the dead node", Duration.ofSeconds(30),
                    () -> log("start-2").contains("Node 1 (WildFly, port " + (8080 + PORT_OFFSET + 100) + ") exited unexpectedly"));
            assertTrue(second.isAlive(), log("start-2"));
            for (int i = 0; i < 5; i++) {
                assertEquals(200, new Http(new URL(lb + "/")).get("api/health", null).statusCode(), "through HAProxy, try " + i);
            }
            assertEquals(0, run("status"), log("status"));
            assertTrue(log("status").contains("Node 0: WildFly running (pid " + secondWildfly + "), http://127.0.0.1:"
                    + (8080 + PORT_OFFSET) + ", healthy\n"), log("status"));
            assertTrue(log("status").contains("Node 1: WildFly not running"), log("status"));
            assertTrue(log("status").contains("Load balancer: HAProxy running (pid " + haproxy + ")"), log("status"));
            for (Process launcher : launchers) {
                started.add(launcher.pid());
            }

            assertEquals(0, run("stop"), log("stop"));
            assertTrue(second.waitFor(1, TimeUnit.MINUTES), "bin/roost stop ends the foreground launcher");
            assertEquals(0, second.exitValue(), log("start-2"));
            for (long pid : started) {
                ProcessHandle.of(pid).ifPresent(LauncherIT::awaitExit);
            }
        } finally {
            try {
                run("stop");
            } catch (Exception | AssertionError e) { // not to hide the test's own failure
                System.err.println("[LauncherIT] bin/roost stop failed (" + WORK.resolve("stop.log") + "): " + e);
            }
            launchers.forEach(Process::destroyForcibly);
        }
    }

    /** {@code bin/roost ARGS} (a start) in the background, its output in target/launcher-it/NAME.log. */
    private Process start(String name, String... args) throws IOException {
        Process process = launcher(args).redirectOutput(WORK.resolve(name + ".log").toFile()).start();
        launchers.add(process);
        return process;
    }

    /** Runs {@code bin/roost COMMAND} to its end (output in target/launcher-it/COMMAND.log); its exit status. */
    private static int run(String command) throws Exception {
        Files.createDirectories(WORK);
        Process process = launcher(command).redirectOutput(WORK.resolve(command + ".log").toFile()).start();
        if (!process.waitFor(3, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            fail("bin/roost " + command + " did not finish in 3 minutes");
        }
        return process.exitValue();
    }

    private static ProcessBuilder launcher(String... args) {
        List<String> command = new ArrayList<>(List.of(io.roost.RepoFiles.of("bin/roost").toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(ROOT.toFile())
                .redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        // Failsafe's environment configures the suite's WildFly; the launcher gets only its own.
        Map<String, String> env = builder.environment();
        env.keySet().removeIf(k -> k.startsWith("ROOST_") || k.startsWith("JBOSS_") || k.equals("JAVA_OPTS"));
        env.putAll(LAUNCHER_ENV);
        return builder;
    }

    private static String awaitBanner(Process launcher, String name) throws Exception {
        long deadline = System.nanoTime() + UP_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            String log = log(name);
            if (log.contains(BANNER_END)) {
                return log;
            }
            if (!launcher.isAlive()) {
                fail("bin/roost start exited with " + launcher.exitValue() + " before it was up:\n" + log);
            }
            Thread.sleep(500);
        }
        return fail("bin/roost start not up in " + UP_TIMEOUT + ":\n" + log(name));
    }

    /** The banner's indented lines after "Post a signed test notification", up to the blank line. */
    private static String postCommand(String banner) {
        List<String> lines = banner.lines().toList();
        int header = lines.stream().filter(l -> l.startsWith("Post a signed test notification")).findFirst()
                .map(lines::indexOf).orElseThrow(() -> new AssertionError("no webhook command in\n" + banner));
        return String.join("\n", lines.subList(header + 1, lines.size()).stream().takeWhile(l -> !l.isBlank()).toList());
    }

    /** Runs a command as pasted into a shell; its output. */
    private static String bash(String command) throws Exception {
        Process process = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(1, TimeUnit.MINUTES));
        return output;
    }

    private static String log(String name) throws IOException {
        Path log = WORK.resolve(name + ".log");
        return Files.exists(log) ? Files.readString(log) : "";
    }

    private static long pidIn(Path file) throws IOException {
        return Long.parseLong(Files.readAllLines(file).get(0).strip());
    }

    /** PostgreSQL's postmaster.pid: the postmaster's pid on its first line. */
    private static long postmasterPid() throws IOException {
        return pidIn(DATA.resolve("devservices/pgdata/postmaster.pid"));
    }

    private static void kill(ProcessHandle process) throws Exception {
        assertTrue(process.destroyForcibly(), "SIGKILL to " + process.pid());
        process.onExit().get(30, TimeUnit.SECONDS);
    }

    private static void awaitExit(ProcessHandle process) {
        try {
            process.onExit().get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            fail("still running after bin/roost stop: pid " + process.pid() + " " + process.info());
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> paths = Files.walk(dir)) {
                for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
