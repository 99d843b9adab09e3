package io.roost.devservices;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Dev services for Roost: a real PostgreSQL and a real RocketMQ name server + broker, run as one
 * background process, for {@code bin/roost start}, the benchmarks and the integration tests.
 *
 * <pre>
 * DevServices start [--fresh] --dir=D --db-port=P --namesrv-port=P --broker-port=P --classpath-file=F
 *                   [--max-lifetime-minutes=N] [--broker-pull-max=N] [--no-db] [--no-rocketmq] [--no-fsync]
 * DevServices stop --dir=D
 * DevServices db-stop --dir=D | db-start --dir=D | broker-stop --dir=D | broker-start --dir=D
 * DevServices run ...       (the background process itself, in the foreground; start launches it)
 * </pre>
 *
 * {@code start} uses no class outside the JDK, so it runs with only the test classes on its class
 * path: it launches {@code run} in a child JVM whose class path is the test classes plus the one
 * line of --classpath-file (maven-dependency-plugin build-classpath), waits for
 * {@code D/ready.properties} and returns. {@code stop} sends SIGTERM to the pid in
 * {@code D/devservices.pid} and waits; the child's shutdown hook stops the broker, the name server
 * and PostgreSQL, in that order. PostgreSQL is not a child of that JVM ({@code pg_ctl} daemonizes
 * it), so after a forced kill {@code stop} finds the postmaster of {@code D/pgdata} by its command
 * line and stops it by pid.
 *
 * <p>{@code db-stop} and {@code db-start} ask the running process to stop its PostgreSQL (a fast
 * shutdown: sessions are cut off, as when a database server goes away) and to start it again on the
 * same data directory, port and settings; {@code broker-stop} and {@code broker-start} do the same
 * for the RocketMQ broker (stopped, its ports refuse connections; started again on the same store
 * and ports, registered with the name server, which keeps running). Each returns once that is done.
 * The outage tests and the fault harness use them ({@link #control}); the request and the answer
 * are files in D ({@code control.request}, {@code control.reply}), which the process looks for
 * every {@value #CONTROL_POLL_MILLIS} ms.
 *
 * <p>Files in D: {@code devservices.pid}, {@code devservices.log} (the child's stdout/stderr:
 * our lines, embedded PostgreSQL's and the server log), {@code ready.properties} (db.url, db.user,
 * db.password, rocketmq.namesrv), {@code pgdata/} (kept across runs unless --fresh),
 * {@code rocketmq/} (store, name server config, {@code logs/}; kept unless --fresh).
 *
 * <p>PostgreSQL makes every commit durable ({@code fsync=on}, {@code synchronous_commit=on}, as in
 * production), so {@code bin/roost} keeps what it acknowledged through a crash and the benchmarks
 * measure durable commits. {@code --no-fsync} turns both off: for the integration tests only, whose
 * database is thrown away after the run (the build passes it, and says why).
 *
 * <p>Ports: db-port (PostgreSQL, 127.0.0.1), namesrv-port, broker-port, broker-port − 2 (the
 * broker's "fast"/VIP remoting server) and broker-port + 1 (HA); they must all differ.
 */
public final class DevServices {

    static final String READY = "ready.properties";
    static final String PID = "devservices.pid";
    static final String LOG = "devservices.log";
    static final String PGDATA = "pgdata";
    static final String ROCKETMQ = "rocketmq";
    static final String CONTROL_REQUEST = "control.request";
    static final String CONTROL_REPLY = "control.reply";
    /** What {@link #control} can ask of the running process. */
    static final Set<String> CONTROLS = Set.of("db-stop", "db-start", "broker-stop", "broker-start");
    static final long CONTROL_POLL_MILLIS = 50;

    static final long START_TIMEOUT_SECONDS = 120;
    static final long STOP_TIMEOUT_SECONDS = 60;
    static final long POSTGRES_STOP_TIMEOUT_SECONDS = 20;

    private static final Set<String> FLAGS = Set.of("fresh", "no-db", "no-rocketmq", "no-fsync", "discard");
    private static final Set<String> VALUED = Set.of("dir", "db-port", "namesrv-port", "broker-port",
            "classpath-file", "max-lifetime-minutes", "broker-pull-max", "pg-settings", "s3-port", "s3-jar");

    private DevServices() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            usage("no command");
        }
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            usage(e.getMessage());
            return;
        }
        switch (options.command()) {
            case "start" -> System.exit(start(options));
            case "stop" -> System.exit(options.discard() ? discard(options.dir()) : stop(options.dir(), true));
            case "db-stop", "db-start", "broker-stop", "broker-start" -> {
                control(options.dir(), options.command());
                System.exit(0);
            }
            case "run" -> DevServicesProcess.run(options);
            default -> usage("unknown command " + options.command());
        }
    }

    private static void usage(String problem) {
        System.err.println("[devservices] " + problem);
        System.err.println("usage: DevServices start|run [--fresh] --dir=DIR --db-port=P --namesrv-port=P --broker-port=P"
                + " --classpath-file=F [--max-lifetime-minutes=N] [--broker-pull-max=N] [--no-db] [--no-rocketmq] [--no-fsync]"
                + " [--pg-settings='name=value ...']");
        System.err.println("       DevServices stop [--discard] --dir=DIR");
        System.err.println("       DevServices db-stop|db-start|broker-stop|broker-start --dir=DIR");
        System.exit(2);
    }

    /** The parsed command line; {@link #childArguments()} gives it back for the {@code run} child. */
    record Options(String command, Path dir, boolean fresh, boolean db, boolean rocketMq, int dbPort,
                   int namesrvPort, int brokerPort, Path classpathFile, long maxLifetimeMinutes, int brokerPullMax,
                   boolean durableCommits, Map<String, String> pgSettings, boolean discard, int s3Port, Path s3Jar) {

        static Options parse(String[] args) {
            Map<String, String> raw = new LinkedHashMap<>();
            for (int i = 1; i < args.length; i++) {
                String a = args[i];
                if (!a.startsWith("--")) {
                    throw new IllegalArgumentException("unexpected argument " + a);
                }
                int eq = a.indexOf('=');
                String name = eq < 0 ? a.substring(2) : a.substring(2, eq);
                if (eq < 0 ? !FLAGS.contains(name) : !VALUED.contains(name)) {
                    throw new IllegalArgumentException("unknown option " + a);
                }
                raw.put(name, eq < 0 ? "true" : a.substring(eq + 1));
            }
            String command = args[0];
            String dirValue = raw.get("dir");
            if (dirValue == null || dirValue.isBlank()) {
                throw new IllegalArgumentException("--dir is required");
            }
            Path dir = Path.of(dirValue).toAbsolutePath().normalize();
            if (command.equals("stop") || CONTROLS.contains(command)) {
                return new Options(command, dir, false, false, false, 0, 0, 0, null, 0, 0, true, Map.of(), raw.containsKey("discard"), 0,
                        null);
            }
            boolean db = !raw.containsKey("no-db");
            boolean rocketMq = !raw.containsKey("no-rocketmq");
            int dbPort = db ? port(raw, "db-port") : 0;
            int namesrvPort = rocketMq ? port(raw, "namesrv-port") : 0;
            int brokerPort = rocketMq ? port(raw, "broker-port") : 0;
            if (rocketMq && brokerPort < 3) {
                throw new IllegalArgumentException("--broker-port must be at least 3 (the broker also listens on port - 2)");
            }
            Path classpathFile = null;
            if (command.equals("start") && (db || rocketMq)) {
                String f = raw.get("classpath-file");
                if (f == null || f.isBlank()) {
                    throw new IllegalArgumentException("--classpath-file is required");
                }
                classpathFile = Path.of(f).toAbsolutePath().normalize();
            }
            long lifetime = 0;
            if (raw.containsKey("max-lifetime-minutes")) {
                lifetime = Long.parseLong(raw.get("max-lifetime-minutes"));
                if (lifetime <= 0) {
                    throw new IllegalArgumentException("--max-lifetime-minutes must be positive");
                }
            }
            // Messages one pull may return (the broker's maxTransferCountOnMessageInMemory; 0: its default, 32).
            int pullMax = Integer.parseInt(raw.getOrDefault("broker-pull-max", "0"));
            if (pullMax < 0 || pullMax > 65_536) {
                throw new IllegalArgumentException("--broker-pull-max out of range: " + pullMax);
            }
            // An S3-compatible server (S3Proxy, its jar run as a process of its own) when both are given
            int s3Port = raw.containsKey("s3-port") ? port(raw, "s3-port") : 0;
            Path s3Jar = raw.containsKey("s3-jar") ? Path.of(raw.get("s3-jar")).toAbsolutePath().normalize() : null;
            if ((s3Port > 0) != (s3Jar != null)) {
                throw new IllegalArgumentException("--s3-port and --s3-jar go together");
            }
            Options options = new Options(command, dir, raw.containsKey("fresh"), db, rocketMq, dbPort, namesrvPort,
                    brokerPort, classpathFile, lifetime, pullMax, !raw.containsKey("no-fsync"),
                    pgSettings(raw.getOrDefault("pg-settings", "")), false, s3Port, s3Jar);
            options.checkDistinctPorts();
            return options;
        }

        /**
         * PostgreSQL settings on top of the dev services' own (which they replace), as
         * {@code name=value} pairs separated by spaces, e.g. {@code shared_preload_libraries=pg_stat_statements}.
         */
        static Map<String, String> pgSettings(String value) {
            Map<String, String> settings = new LinkedHashMap<>();
            for (String pair : value.trim().split("\\s+")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                if (eq < 1 || eq == pair.length() - 1 || !pair.substring(0, eq).matches("[a-z_][a-z0-9_.]*")) {
                    throw new IllegalArgumentException("--pg-settings wants name=value pairs separated by spaces, not " + pair);
                }
                settings.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
            return settings;
        }

        private static int port(Map<String, String> raw, String name) {
            String v = raw.get(name);
            if (v == null || v.isBlank()) {
                throw new IllegalArgumentException("--" + name + " is required");
            }
            int port = Integer.parseInt(v);
            if (port < 1 || port > 65534) {
                throw new IllegalArgumentException("--" + name + " out of range: " + v);
            }
            return port;
        }

        /** Every port the services listen on, with what uses it. */
        Map<Integer, String> ports() {
            Map<Integer, String> ports = new LinkedHashMap<>();
            if (db) {
                ports.put(dbPort, "PostgreSQL (--db-port)");
            }
            if (rocketMq) {
                ports.put(namesrvPort, "RocketMQ name server (--namesrv-port)");
                ports.put(brokerPort, "RocketMQ broker (--broker-port)");
                ports.put(brokerPort - 2, "RocketMQ broker fast/VIP remoting (--broker-port - 2)");
                ports.put(brokerPort + 1, "RocketMQ broker HA (--broker-port + 1)");
            }
            if (s3Port > 0) {
                ports.put(s3Port, "S3Proxy (--s3-port)");
            }
            return ports;
        }

        private void checkDistinctPorts() {
            int expected = (db ? 1 : 0) + (rocketMq ? 4 : 0) + (s3Port > 0 ? 1 : 0);
            if (ports().size() != expected) {
                throw new IllegalArgumentException("ports collide: db-port " + dbPort + ", namesrv-port " + namesrvPort
                        + ", broker-port " + brokerPort + " (the broker also uses broker-port - 2 and broker-port + 1)");
            }
        }

        /** The options of a {@code run} child equivalent to this {@code start}, with absolute paths. */
        List<String> childArguments() {
            List<String> a = new ArrayList<>();
            a.add("run");
            if (fresh) {
                a.add("--fresh");
            }
            a.add("--dir=" + dir);
            if (db) {
                a.add("--db-port=" + dbPort);
                if (!durableCommits) {
                    a.add("--no-fsync");
                }
                if (!pgSettings.isEmpty()) {
                    a.add("--pg-settings=" + String.join(" ", pgSettings.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList()));
                }
            } else {
                a.add("--no-db");
            }
            if (rocketMq) {
                a.add("--namesrv-port=" + namesrvPort);
                a.add("--broker-port=" + brokerPort);
                if (brokerPullMax > 0) {
                    a.add("--broker-pull-max=" + brokerPullMax);
                }
            } else {
                a.add("--no-rocketmq");
            }
            if (maxLifetimeMinutes > 0) {
                a.add("--max-lifetime-minutes=" + maxLifetimeMinutes);
            }
            if (s3Port > 0) {
                a.add("--s3-port=" + s3Port);
                a.add("--s3-jar=" + s3Jar);
            }
            return a;
        }
    }

    // ---------------------------------------------------------------------------------- start

    static int start(Options options) throws Exception {
        Path dir = options.dir();
        Files.createDirectories(dir);
        stop(dir, false); // a leftover from an earlier start must not hold the ports or the data
        Files.deleteIfExists(dir.resolve(READY));
        if (!options.db() && !options.rocketMq()) {
            log("nothing to start (--no-db and --no-rocketmq)");
            return 0;
        }
        for (Map.Entry<Integer, String> port : options.ports().entrySet()) {
            if (!isFree(port.getKey())) {
                System.err.println("[devservices] port " + port.getKey() + " on 127.0.0.1 is already in use; it is needed for "
                        + port.getValue());
                return 1;
            }
        }

        String classPath = Files.readString(options.classpathFile()).trim();
        String ownClassPath = absoluteClassPath(System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms128m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:MaxDirectMemorySize=256m",
                "-Djava.net.preferIPv4Stack=true",
                DevServices.class.getName()));
        command.addAll(options.childArguments());
        Path log = dir.resolve(LOG);
        ProcessBuilder builder = new ProcessBuilder(command);
        // The class path (~270 jars) goes in the environment, not on the command line: `ps` and
        // /proc/<pid>/cmdline (which `stop` checks before it signals a pid) stay readable.
        builder.environment().put("CLASSPATH", ownClassPath + File.pathSeparator + classPath);
        Process child = builder
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
        long begin = System.nanoTime();
        Files.writeString(dir.resolve(PID), Long.toString(child.pid()));
        log("starting dev services, pid " + child.pid() + ", log " + log);

        long deadline = begin + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
        Path ready = dir.resolve(READY);
        while (!Files.exists(ready)) {
            if (!child.isAlive()) {
                System.err.println("[devservices] the dev services process exited with status " + child.exitValue()
                        + "; last lines of " + log + ":");
                printTail(log);
                Files.deleteIfExists(dir.resolve(PID));
                stopOrphanedPostgres(dir.resolve(PGDATA));
                return 1;
            }
            if (System.nanoTime() > deadline) {
                System.err.println("[devservices] not ready after " + START_TIMEOUT_SECONDS + " s; last lines of " + log + ":");
                printTail(log);
                stop(dir, true);
                return 1;
            }
            Thread.sleep(100);
        }
        Properties p = new Properties();
        try (var in = Files.newInputStream(ready)) {
            p.load(in);
        }
        log(String.format("ready in %.1f s (pid %d)", secondsSince(begin), child.pid()));
        p.stringPropertyNames().stream().sorted().forEach(k -> log("  " + k + " = " + p.getProperty(k)));
        return 0;
    }

    private static String absoluteClassPath(String classPath) {
        List<String> entries = new ArrayList<>();
        for (String e : classPath.split(File.pathSeparator)) {
            if (!e.isEmpty()) {
                entries.add(Path.of(e).toAbsolutePath().normalize().toString());
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    private static boolean isFree(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    // ---------------------------------------------------------------------------------- stop

    /**
     * Stops the process recorded in {@code dir/devservices.pid} (SIGTERM, then SIGKILL after
     * {@value #STOP_TIMEOUT_SECONDS} s) and any PostgreSQL still serving {@code dir/pgdata}.
     * Returns 0 whether or not anything was running.
     */
    static int stop(Path dir, boolean verbose) throws IOException, InterruptedException {
        dir = dir.toAbsolutePath().normalize();
        Path pidFile = dir.resolve(PID);
        Optional<ProcessHandle> handle = recorded(pidFile, verbose);
        if (handle.isPresent()) {
            ProcessHandle h = handle.get();
            long begin = System.nanoTime();
            log("stopping dev services, pid " + h.pid());
            h.destroy(); // SIGTERM: the shutdown hook stops broker, name server, PostgreSQL
            try {
                h.onExit().get(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (Exception e) {
                log("pid " + h.pid() + " did not stop in " + STOP_TIMEOUT_SECONDS + " s; killing it");
                h.destroyForcibly();
                try {
                    h.onExit().get(10, TimeUnit.SECONDS);
                } catch (Exception ignored) {
                    // reported by the isAlive check below
                }
            }
            log(String.format("dev services %s in %.1f s", h.isAlive() ? "STILL RUNNING" : "stopped", secondsSince(begin)));
        }
        // After a clean shutdown hook PostgreSQL and S3Proxy are already down; after a kill they are orphans.
        stopOrphanedPostgres(dir.resolve(PGDATA));
        stopOrphanedS3(dir);
        Files.deleteIfExists(pidFile);
        Files.deleteIfExists(dir.resolve(READY));
        return 0;
    }

    /**
     * {@code stop --discard}: for services whose data is thrown away (the tests'), no clean
     * shutdown: SIGKILL to the dev services process (the broker and the name server die with it,
     * at once instead of in their 10-18 s shutdown), then PostgreSQL's fast shutdown. Returns 0.
     */
    static int discard(Path dir) throws IOException, InterruptedException {
        dir = dir.toAbsolutePath().normalize();
        Optional<ProcessHandle> handle = recorded(dir.resolve(PID), false);
        if (handle.isPresent()) {
            long begin = System.nanoTime();
            handle.get().destroyForcibly();
            try {
                handle.get().onExit().get(10, TimeUnit.SECONDS);
                log(String.format("dev services pid %d killed (their data is discarded) in %.1f s", handle.get().pid(),
                        secondsSince(begin)));
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                log("dev services pid " + handle.get().pid() + " not gone after SIGKILL: " + e);
            }
        }
        return stop(dir, false); // the orphaned PostgreSQL, the pid and ready files; a survivor, by SIGTERM
    }

    /** Where the S3Proxy child's pid is kept, so that a stop after a kill finds it. */
    static final String S3_PID = "s3proxy.pid";

    /** Kills the S3Proxy a killed dev services process left behind (its pid file names it; the command line confirms). */
    static void stopOrphanedS3(Path dir) throws IOException {
        Path pidFile = dir.resolve(S3_PID);
        if (!Files.exists(pidFile)) {
            return;
        }
        try {
            ProcessHandle.of(Long.parseLong(Files.readString(pidFile).trim()))
                    .filter(h -> h.info().commandLine().map(c -> c.contains("s3proxy")).orElse(false))
                    .ifPresent(h -> {
                        h.destroyForcibly();
                        log("S3Proxy pid " + h.pid() + " killed");
                    });
        } catch (NumberFormatException e) {
            log("ignoring unreadable " + pidFile);
        }
        Files.deleteIfExists(pidFile);
    }

    /** The live dev services process that {@code pidFile} names, if any (saying why not, if {@code verbose}). */
    private static Optional<ProcessHandle> recorded(Path pidFile, boolean verbose) throws IOException {
        if (!Files.exists(pidFile)) {
            if (verbose) {
                log("not running (no " + pidFile + ")");
            }
            return Optional.empty();
        }
        String recorded = Files.readString(pidFile).trim();
        Optional<ProcessHandle> handle = Optional.empty();
        try {
            handle = ProcessHandle.of(Long.parseLong(recorded)).filter(ProcessHandle::isAlive).filter(DevServices::isDevServicesProcess);
        } catch (NumberFormatException e) {
            log("ignoring unreadable " + pidFile);
        }
        if (handle.isEmpty() && verbose) {
            log("pid " + recorded + " from " + pidFile + " is not running");
        }
        return handle;
    }

    private static boolean isDevServicesProcess(ProcessHandle h) {
        // Guards against a recycled pid. Without a readable command line, trust the pid file.
        return h.info().commandLine().map(c -> c.contains(DevServices.class.getName()) && c.contains(" run "))
                .orElse(true);
    }

    /**
     * Stops a postmaster serving {@code pgdata} (found by its command line, then signalled by pid):
     * SIGINT (fast shutdown), then SIGKILL for it and its backends.
     */
    static void stopOrphanedPostgres(Path pgdata) throws InterruptedException {
        for (ProcessHandle postmaster : postmastersOf(pgdata)) {
            long begin = System.nanoTime();
            log("stopping orphaned PostgreSQL postmaster pid " + postmaster.pid() + " (" + pgdata + ")");
            List<ProcessHandle> backends = postmaster.descendants().toList();
            signal(postmaster, "INT");
            try {
                postmaster.onExit().get(POSTGRES_STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            } catch (Exception e) {
                log("postmaster pid " + postmaster.pid() + " did not stop in " + POSTGRES_STOP_TIMEOUT_SECONDS + " s; killing it");
                postmaster.destroyForcibly();
                backends.forEach(ProcessHandle::destroyForcibly);
                try {
                    postmaster.onExit().get(10, TimeUnit.SECONDS);
                } catch (Exception ignored) {
                    // reported below
                }
            }
            log(String.format("postmaster pid %d %s in %.1f s", postmaster.pid(),
                    postmaster.isAlive() ? "STILL RUNNING" : "stopped", secondsSince(begin)));
        }
    }

    /** Running {@code postgres} postmasters started with {@code -D <pgdata>}. */
    static List<ProcessHandle> postmastersOf(Path pgdata) {
        String wanted = pgdata.toAbsolutePath().normalize().toString();
        return ProcessHandle.allProcesses()
                .filter(p -> p.info().command().map(c -> c.endsWith("/postgres")).orElse(false))
                .filter(p -> servesDataDirectory(p.info(), wanted))
                .toList();
    }

    private static boolean servesDataDirectory(ProcessHandle.Info info, String pgdata) {
        Optional<String[]> args = info.arguments();
        if (args.isPresent() && args.get().length > 0) {
            String[] a = args.get();
            for (int i = 0; i < a.length - 1; i++) {
                if (a[i].equals("-D") && Path.of(a[i + 1]).toAbsolutePath().normalize().toString().equals(pgdata)) {
                    return true;
                }
            }
            return false;
        }
        return info.commandLine().map(c -> c.contains("-D " + pgdata + " ") || c.endsWith("-D " + pgdata)).orElse(false);
    }

    /** Sends a signal by pid ({@code kill -s NAME pid}); ProcessHandle only knows TERM and KILL. */
    static void signal(ProcessHandle process, String signal) throws InterruptedException {
        try {
            Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(process.pid()))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0) {
                return;
            }
        } catch (IOException e) {
            // no kill(1): fall back to SIGTERM
        }
        process.destroy();
    }

    // ---------------------------------------------------------------------------------- db-/broker- stop/start

    /**
     * Has the dev services process running in {@code dir} stop its PostgreSQL ({@code up} false) or
     * start it again ({@code up} true), and returns once it has (started: accepting connections).
     *
     * @throws IllegalStateException if no dev services process runs there, or it failed or took too long
     */
    public static void database(Path dir, boolean up) throws IOException, InterruptedException {
        control(dir, up ? "db-start" : "db-stop");
    }

    /** As {@link #database}, for the RocketMQ broker (started: registered and routable). */
    public static void broker(Path dir, boolean up) throws IOException, InterruptedException {
        control(dir, up ? "broker-start" : "broker-stop");
    }

    /** Asks the running process for one of {@link #CONTROLS} and waits until it is done. */
    static void control(Path dir, String action) throws IOException, InterruptedException {
        if (!CONTROLS.contains(action)) {
            throw new IllegalArgumentException("unknown control " + action);
        }
        dir = dir.toAbsolutePath().normalize();
        Path pidFile = dir.resolve(PID);
        ProcessHandle process = Files.exists(pidFile)
                ? ProcessHandle.of(Long.parseLong(Files.readString(pidFile).trim())).filter(ProcessHandle::isAlive).orElse(null)
                : null;
        if (process == null) {
            throw new IllegalStateException("no dev services process runs in " + dir);
        }
        String id = Long.toString(System.nanoTime());
        Path reply = dir.resolve(CONTROL_REPLY);
        Files.deleteIfExists(reply);
        Path tmp = dir.resolve(CONTROL_REQUEST + ".tmp");
        Files.writeString(tmp, id + " " + action + "\n");
        Files.move(tmp, dir.resolve(CONTROL_REQUEST), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        long begin = System.nanoTime();
        long deadline = begin + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
        while (true) {
            if (Files.exists(reply)) {
                String answer = Files.readString(reply).trim();
                if (answer.startsWith(id + " ")) {
                    Files.deleteIfExists(reply);
                    String outcome = answer.substring(id.length() + 1);
                    if (!outcome.equals("ok")) {
                        throw new IllegalStateException(action + " failed: " + outcome + " (see " + dir.resolve(LOG) + ")");
                    }
                    log(String.format("%s done in %.1f s", action, secondsSince(begin)));
                    return;
                }
            }
            if (!process.isAlive()) {
                throw new IllegalStateException("the dev services process exited during " + action + "; see " + dir.resolve(LOG));
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(action + " not done after " + START_TIMEOUT_SECONDS + " s; see " + dir.resolve(LOG));
            }
            Thread.sleep(CONTROL_POLL_MILLIS);
        }
    }

    // ---------------------------------------------------------------------------------- shared

    private static void printTail(Path log) {
        try {
            if (Files.exists(log)) {
                List<String> lines = Files.readAllLines(log);
                lines.subList(Math.max(0, lines.size() - 60), lines.size()).forEach(System.err::println);
            }
        } catch (IOException | UncheckedIOException e) {
            System.err.println("[devservices] cannot read " + log + ": " + e);
        }
    }

    /**
     * Plain {@code key=value} lines (no Properties.store escaping of ':'), so that shell scripts can
     * read them as well as {@link Properties#load}; written to a temporary file, then renamed.
     */
    static void writeReady(Path dir, Properties properties) throws IOException {
        StringBuilder text = new StringBuilder("# Roost dev services, pid " + ProcessHandle.current().pid() + "\n");
        properties.stringPropertyNames().stream().sorted()
                .forEach(k -> text.append(k).append('=').append(properties.getProperty(k)).append('\n'));
        Path tmp = dir.resolve(READY + ".tmp");
        Files.writeString(tmp, text);
        Files.move(tmp, dir.resolve(READY), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    static double secondsSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    static void log(String message) {
        System.out.println("[devservices] " + message);
        System.out.flush();
    }
}
