package io.roost.devservices;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * Dev services for Roost: a real PostgreSQL and a real RocketMQ name server + broker, run as one
 * background process, for {@code bin/roost start} and for the integration tests.
 *
 * <pre>
 * DevServices start [--fresh] --dir=D --db-port=P --namesrv-port=P --broker-port=P --classpath-file=F
 *                   [--max-lifetime-minutes=N] [--no-db] [--no-rocketmq]
 * DevServices stop --dir=D
 * DevServices run ...       (the background process itself; start launches it)
 * </pre>
 *
 * {@code start} needs only this class on its class path: it launches {@code run} in a child JVM with
 * the full test class path (read from --classpath-file), waits for {@code D/ready.properties},
 * and returns. {@code stop} sends SIGTERM to the recorded pid and waits; the child's shutdown hook
 * stops the broker, the name server and PostgreSQL in that order.
 */
public final class DevServices {

    static final String READY = "ready.properties";
    static final String PID = "devservices.pid";
    static final String LOG = "devservices.log";

    private DevServices() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            usage();
        }
        Map<String, String> options = parse(args);
        switch (args[0]) {
            case "start" -> System.exit(start(options, args));
            case "stop" -> System.exit(stop(Path.of(required(options, "dir"))));
            case "run" -> DevServicesProcess.run(options);
            default -> usage();
        }
    }

    private static void usage() {
        System.err.println("usage: DevServices start|stop|run --dir=DIR [options]");
        System.exit(2);
    }

    static Map<String, String> parse(String[] args) {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument " + a);
            }
            int eq = a.indexOf('=');
            options.put(eq < 0 ? a.substring(2) : a.substring(2, eq), eq < 0 ? "true" : a.substring(eq + 1));
        }
        return options;
    }

    static String required(Map<String, String> options, String name) {
        String v = options.get(name);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return v;
    }

    private static int start(Map<String, String> options, String[] args) throws Exception {
        Path dir = Path.of(required(options, "dir")).toAbsolutePath();
        Files.createDirectories(dir);
        if (options.containsKey("no-db") && options.containsKey("no-rocketmq")) {
            System.out.println("[devservices] nothing to start (external database and broker)");
            return 0;
        }
        stop(dir); // a leftover from an interrupted run must not hold the ports
        Files.deleteIfExists(dir.resolve(READY));

        String classPath = Files.readString(Path.of(required(options, "classpath-file"))).trim();
        String ownClassPath = System.getProperty("java.class.path");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms64m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:MaxDirectMemorySize=256m",
                // RocketMQ writes its logs under ${user.home}/logs: keep them in the dev-services dir.
                "-Duser.home=" + dir.resolve("home"),
                "-Djava.net.preferIPv4Stack=true",
                DevServices.class.getName(), "run"));
        for (int i = 1; i < args.length; i++) {
            command.add(args[i]);
        }
        Path log = dir.resolve(LOG);
        ProcessBuilder builder = new ProcessBuilder(command);
        // The class path goes in the environment: a short command line stays readable in ps and
        // in /proc (which `stop` checks before it signals a pid).
        builder.environment().put("CLASSPATH", ownClassPath + java.io.File.pathSeparator + classPath);
        Process child = builder
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .start();
        Files.writeString(dir.resolve(PID), Long.toString(child.pid()));
        System.out.println("[devservices] started pid " + child.pid() + ", log " + log);

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
        Path ready = dir.resolve(READY);
        while (!Files.exists(ready)) {
            if (!child.isAlive()) {
                System.err.println("[devservices] the dev services process exited with " + child.exitValue());
                printTail(log);
                return 1;
            }
            if (System.nanoTime() > deadline) {
                System.err.println("[devservices] not ready after 180 s");
                printTail(log);
                stop(dir);
                return 1;
            }
            Thread.sleep(200);
        }
        Properties p = new Properties();
        try (var in = Files.newInputStream(ready)) {
            p.load(in);
        }
        p.stringPropertyNames().stream().sorted()
                .forEach(k -> System.out.println("[devservices] " + k + " = " + p.getProperty(k)));
        return 0;
    }

    static int stop(Path dir) throws IOException, InterruptedException {
        Path pidFile = dir.toAbsolutePath().resolve(PID);
        if (!Files.exists(pidFile)) {
            return 0;
        }
        long pid = Long.parseLong(Files.readString(pidFile).trim());
        Optional<ProcessHandle> handle = ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                .filter(h -> h.info().commandLine().map(c -> c.contains(DevServices.class.getName())).orElse(true));
        if (handle.isEmpty()) {
            System.out.println("[devservices] pid " + pid + " is not running");
        } else {
            List<ProcessHandle> descendants = handle.get().descendants().toList();
            System.out.println("[devservices] stopping pid " + pid);
            long start = System.nanoTime();
            handle.get().destroy();
            try {
                handle.get().onExit().get(90, TimeUnit.SECONDS);
            } catch (Exception e) {
                System.err.println("[devservices] pid " + pid + " did not stop in 90 s; killing it");
                handle.get().destroyForcibly();
                handle.get().onExit().join();
            }
            // PostgreSQL is stopped by the shutdown hook; after a forced kill its processes may remain.
            for (ProcessHandle d : descendants) {
                if (d.isAlive()) {
                    d.destroy();
                    d.onExit().orTimeout(20, TimeUnit.SECONDS).exceptionally(x -> {
                        d.destroyForcibly();
                        return d;
                    }).join();
                }
            }
            System.out.printf("[devservices] stopped in %.1f s%n", (System.nanoTime() - start) / 1e9);
        }
        Files.deleteIfExists(pidFile);
        Files.deleteIfExists(dir.toAbsolutePath().resolve(READY));
        return 0;
    }

    private static void printTail(Path log) throws IOException {
        if (Files.exists(log)) {
            List<String> lines = Files.readAllLines(log);
            lines.subList(Math.max(0, lines.size() - 60), lines.size()).forEach(System.err::println);
        }
    }

    static void writeReady(Path dir, Properties properties) throws IOException {
        Path tmp = dir.resolve(READY + ".tmp");
        try (var out = Files.newOutputStream(tmp)) {
            properties.store(out, "Roost dev services");
        }
        Files.move(tmp, dir.resolve(READY), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
