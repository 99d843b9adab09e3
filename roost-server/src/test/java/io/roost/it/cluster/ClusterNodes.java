package io.roost.it.cluster;

import java.io.IOException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Two WildFly nodes on the suite's PostgreSQL and RocketMQ, as {@code bin/roost start --nodes 2}
 * runs them: the provisioned server (target/server) started twice, each from its own base
 * directory under target/cluster-it with roost.war deployed, with its own {@code ROOST_NODE_ID},
 * port offset (build property {@code roost.test.cluster.port.offset}, + 100 for the second) and
 * transaction node id. Started before a test class's tests, in parallel, and stopped after them.
 * {@code @RegisterExtension static final ClusterNodes cluster = new ClusterNodes();}
 */
public final class ClusterNodes implements BeforeAllCallback, AfterAllCallback {

    /** The nodes' ROOST_NODE_IDs: not the single-node executions' (1), whose routes may be left in the database. */
    public static final int FIRST_NODE_ID = 2;
    private static final Path ROOT = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize();
    private static final Path SERVER = Path.of(System.getProperty("jboss.home", ROOT.resolve("target/server").toString()));
    private static final Path WORK = ROOT.resolve("target/cluster-it");
    private static final int PORT_OFFSET = Integer.getInteger("roost.test.cluster.port.offset", 400);
    private static final Duration UP_TIMEOUT = Duration.ofMinutes(4);
    /**
     * C1 only: a node these tests start spends most of its few minutes starting, and C2's compiling
     * took a core of two from it and its twin (the cluster execution ran in 100 s instead of 170 s).
     * Not for the suite's servers (arquillian.xml), whose tests hash passwords by the hundred.
     */
    public static final String TEST_JIT = "-XX:TieredStopAtLevel=1";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** A node: its ROOST_NODE_ID, its base URL, its base directory and the standalone.sh that runs it. */
    public record Node(int id, URL url, Path base, Process wrapper) {

        /** The server JVM's pid, which standalone.sh writes to wildfly.pid. */
        public Optional<ProcessHandle> jvm() {
            try {
                return ProcessHandle.of(Long.parseLong(Files.readString(base.resolve("wildfly.pid")).strip()));
            } catch (IOException | NumberFormatException e) {
                return Optional.empty();
            }
        }

        /** SIGKILL to the server JVM, as a crash of the node; returns once it is gone. */
        public void kill() throws Exception {
            ProcessHandle jvm = jvm().orElseThrow(() -> new AssertionError("node " + id + " has no running JVM"));
            jvm.destroyForcibly();
            jvm.onExit().get(30, TimeUnit.SECONDS);
        }

        public String log() throws IOException {
            return Files.readString(base.resolve("wildfly.log"));
        }
    }

    private final int count;
    /** More environment for some nodes, by index. */
    private final Map<Integer, Map<String, String>> environments;
    private final List<Node> nodes = new ArrayList<>();

    public ClusterNodes() {
        this(2);
    }

    public ClusterNodes(int count) {
        this(count, Map.of());
    }

    public ClusterNodes(int count, Map<Integer, Map<String, String>> environments) {
        this.count = count;
        this.environments = environments;
    }

    public Node node(int index) {
        return nodes.get(index);
    }

    public List<Node> nodes() {
        return List.copyOf(nodes);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        Runtime.getRuntime().addShutdownHook(new Thread(this::stop)); // also when the run is aborted
        for (int i = 0; i < count; i++) {
            nodes.add(start(i, environments.getOrDefault(i, Map.of())));
        }
        long deadline = System.nanoTime() + UP_TIMEOUT.toNanos();
        for (Node node : nodes) {
            while (!healthy(node)) {
                if (!node.wrapper().isAlive() || System.nanoTime() > deadline) {
                    throw new AssertionError("node " + node.id() + " did not become healthy; its log:\n" + tail(node));
                }
                Thread.sleep(500);
            }
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        stop();
    }

    private static Node start(int index, Map<String, String> environment) throws IOException {
        int id = FIRST_NODE_ID + index;
        int offset = PORT_OFFSET + 100 * index;
        Path base = WORK.resolve("node-" + index);
        deleteRecursively(base);
        Files.createDirectories(base.resolve("configuration"));
        Files.createDirectories(base.resolve("deployments"));
        try (Stream<Path> files = Files.list(SERVER.resolve("standalone/configuration"))) {
            for (Path f : files.filter(f -> f.toString().endsWith(".xml") || f.toString().endsWith(".properties")).toList()) {
                Files.copy(f, base.resolve("configuration").resolve(f.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
            }
        }
        Files.copy(Path.of(System.getProperty("roost.war", "target/roost.war")), base.resolve("deployments/ROOT.war"));
        ProcessBuilder builder = new ProcessBuilder(SERVER.resolve("bin/standalone.sh").toString(), "-b", "127.0.0.1",
                "-Djboss.server.base.dir=" + base, "-Djboss.socket.binding.port-offset=" + offset,
                "-Djboss.tx.node.id=roost-it-" + id)
                .redirectErrorStream(true).redirectOutput(base.resolve("wildfly.log").toFile());
        Map<String, String> env = builder.environment();
        env.put("ROOST_NODE_ID", Integer.toString(id));
        env.put("JBOSS_PIDFILE", base.resolve("wildfly.pid").toString());
        env.put("LAUNCH_JBOSS_IN_BACKGROUND", "1");
        env.put("JBOSS_JAVA_SIZING", "-Xms64m -Xmx512m -XX:+UseG1GC " + TEST_JIT);
        env.remove("ROOST_METRICS_AUTH"); // the default (the suite's own server lets MetricsIT in without credentials)
        env.putAll(environment);
        return new Node(id, new URL("http://127.0.0.1:" + (8080 + offset) + "/"), base, builder.start());
    }

    private static boolean healthy(Node node) {
        try {
            HttpRequest request = HttpRequest.newBuilder(URI.create(node.url() + "api/health")).timeout(Duration.ofSeconds(5)).build();
            return HTTP.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** SIGTERM to every node's JVM, then waits for all of them (SIGKILL after 30 s). */
    private synchronized void stop() {
        List<ProcessHandle> running = new ArrayList<>();
        for (Node node : nodes) {
            node.jvm().filter(ProcessHandle::isAlive).ifPresent(running::add);
            running.add(node.wrapper().toHandle());
        }
        running.forEach(ProcessHandle::destroy);
        for (ProcessHandle p : running) {
            try {
                p.onExit().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                p.destroyForcibly();
            }
        }
        nodes.clear();
    }

    private static String tail(Node node) {
        try {
            List<String> lines = node.log().lines().toList();
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
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
