package io.roost.devservices;

import static io.roost.devservices.DevServices.log;
import static io.roost.devservices.DevServices.secondsSince;

import io.roost.devservices.DevServices.Options;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.apache.rocketmq.broker.BrokerController;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.BrokerConfig;
import org.apache.rocketmq.common.MQVersion;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.namesrv.NamesrvConfig;
import org.apache.rocketmq.namesrv.NamesrvController;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyServerConfig;
import org.apache.rocketmq.remoting.protocol.RemotingCommand;
import org.apache.rocketmq.store.config.MessageStoreConfig;

/**
 * The background process of {@link DevServices} ({@code DevServices run}): PostgreSQL + RocketMQ
 * until SIGTERM/SIGINT or the max lifetime.
 *
 * <p>Layout under the dev-services directory D: {@code D/pgdata} (PostgreSQL data, kept unless
 * --fresh), {@code D/rocketmq/store} (commit log, queues, topic/offset/subscription config),
 * {@code D/rocketmq/namesrv} (name server kv config), {@code D/rocketmq/logs/rocketmq.log} (all
 * RocketMQ logging: broker, name server, the readiness probe's client) and
 * {@code rocketmq-stats.log}. The whole {@code D/rocketmq} is wiped by --fresh. {@code user.home}
 * is {@code D/rocketmq} in this JVM, so nothing RocketMQ writes by default lands in ~.
 */
final class DevServicesProcess {

    private static final String DB_NAME = "roost";
    private static final String DB_USER = "roost";
    private static final String DB_PASSWORD = "roost";

    private final Path dir;
    private final boolean db;
    private final int dbPort;
    private final boolean durableCommits;
    /** Settings given with --pg-settings (diagnostics such as pg_stat_statements): applied last, so they win. */
    private final Map<String, String> pgSettings;
    private volatile EmbeddedPostgres postgres;
    private volatile NamesrvController nameServer;
    private volatile BrokerController broker;
    /** What a broker-start needs to start the broker again as it first started. */
    private volatile BrokerSetup brokerSetup;
    private volatile Thread nameServerStopper;
    private volatile Process s3;
    private final AtomicBoolean nameServerStopping = new AtomicBoolean();
    /** Set by the shutdown hook: a db-start arriving later must not bring PostgreSQL back. */
    private volatile boolean shuttingDown;

    private DevServicesProcess(Path dir, boolean db, int dbPort, boolean durableCommits, Map<String, String> pgSettings) {
        this.dir = dir;
        this.db = db;
        this.dbPort = dbPort;
        this.durableCommits = durableCommits;
        this.pgSettings = pgSettings;
    }

    static void run(Options options) throws Exception {
        long begin = System.nanoTime();
        Path dir = options.dir();
        Path pgdata = dir.resolve(DevServices.PGDATA);
        Path rocketHome = dir.resolve(DevServices.ROCKETMQ);
        Files.createDirectories(dir);
        log("pid " + ProcessHandle.current().pid() + ", " + String.join(" ", options.childArguments()));
        if (options.fresh()) {
            if (options.db()) {
                // Not while a postmaster from a killed run still uses it.
                DevServices.stopOrphanedPostgres(pgdata);
                deleteTree(pgdata);
            }
            if (options.rocketMq()) {
                deleteTree(rocketHome);
            }
            log("--fresh: removed earlier data");
        }
        if (options.rocketMq()) {
            // Both before the first RocketMQ class is initialized: its logging reads the
            // configuration once, and default paths derive from user.home.
            Files.createDirectories(rocketHome.resolve("logs"));
            System.setProperty("user.home", rocketHome.toString());
            System.setProperty("rmq.logback.configurationFile", writeLogbackConfig(rocketHome).toString());
            // What the stock mqnamesrv/mqbroker start-up classes do first. Without it the name server
            // drops the broker's topic routes ("No route info of this topic").
            System.setProperty(RemotingCommand.REMOTING_VERSION_KEY, Integer.toString(MQVersion.CURRENT_VERSION));
            // The default "permissive" TLS mode makes every remoting server build a self-signed
            // certificate at start (3-12 s here); clients use plain TCP unless told otherwise.
            System.setProperty("tls.server.mode", "disabled");
        }

        DevServicesProcess services = new DevServicesProcess(dir, options.db(), options.dbPort(), options.durableCommits(),
                options.pgSettings());
        Runtime.getRuntime().addShutdownHook(new Thread(services::shutdown, "devservices-shutdown"));
        if (options.maxLifetimeMinutes() > 0) {
            // Safety net: a build that died without calling stop does not leave us running for ever.
            Thread guard = new Thread(() -> {
                try {
                    TimeUnit.MINUTES.sleep(options.maxLifetimeMinutes());
                    log("max lifetime of " + options.maxLifetimeMinutes() + " min reached; stopping");
                    System.exit(0);
                } catch (InterruptedException ignored) {
                    // exiting anyway
                }
            }, "devservices-lifetime");
            guard.setDaemon(true);
            guard.start();
        }

        Properties ready = new Properties();
        try {
            // Independent, so in parallel: PostgreSQL on a helper thread, RocketMQ on this one.
            CompletableFuture<Void> db = options.db()
                    ? CompletableFuture.runAsync(() -> {
                        try {
                            services.startPostgres(pgdata);
                        } catch (Exception e) {
                            throw new CompletionException(e);
                        }
                    }, runnable -> new Thread(runnable, "devservices-postgres").start())
                    : CompletableFuture.completedFuture(null);
            if (options.rocketMq()) {
                services.startRocketMq(rocketHome, options.namesrvPort(), options.brokerPort(), options.brokerPullMax());
                ready.setProperty("rocketmq.namesrv", "127.0.0.1:" + options.namesrvPort());
            }
            try {
                db.join();
            } catch (CompletionException e) {
                throw e.getCause();
            }
            if (options.s3Port() > 0) {
                services.startS3(options.s3Port(), options.s3Jar());
                ready.setProperty("s3.endpoint", "http://127.0.0.1:" + options.s3Port());
            }
            if (options.db()) {
                ready.setProperty("db.url", "jdbc:postgresql://127.0.0.1:" + options.dbPort() + "/" + DB_NAME);
                ready.setProperty("db.user", DB_USER);
                ready.setProperty("db.password", DB_PASSWORD);
            }
        } catch (Throwable e) {
            log("start failed: " + e);
            e.printStackTrace(System.out);
            if (options.rocketMq()) {
                log("RocketMQ's own log: " + rocketHome.resolve("logs/rocketmq.log"));
            }
            System.out.flush();
            System.exit(1); // the shutdown hook stops whatever did start
        }
        services.watchControlRequests();
        DevServices.writeReady(dir, ready);
        log(String.format("ready in %.1f s", secondsSince(begin)));
        Thread.currentThread().join(); // until SIGTERM/SIGINT or the lifetime guard runs the shutdown hook
    }

    // ------------------------------------------------------------------------------ S3Proxy

    /** The access key and secret of the dev S3Proxy (a throw-away store on this machine). */
    static final String S3_IDENTITY = "roost";
    static final String S3_CREDENTIAL = "roost-dev-secret";

    /**
     * S3Proxy (Maven Central's org.gaul:s3proxy, its jar with dependencies) over a directory of
     * {@code dir}: a real S3 API (signatures v2 and v4, ranges, multipart) that stores objects as
     * files. A process of its own, so that its Jetty and jclouds stay off this JVM's class path.
     */
    private void startS3(int port, Path jar) throws Exception {
        long start = System.nanoTime();
        Path base = dir.resolve("s3");
        Files.createDirectories(base);
        Path properties = dir.resolve("s3proxy.properties");
        Files.writeString(properties, String.join("\n",
                "s3proxy.endpoint=http://127.0.0.1:" + port,
                "s3proxy.authorization=aws-v2-or-v4",
                "s3proxy.identity=" + S3_IDENTITY,
                "s3proxy.credential=" + S3_CREDENTIAL,
                "jclouds.provider=filesystem",
                "jclouds.filesystem.basedir=" + base,
                ""));
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                "-jar", jar.toString(), "--properties", properties.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("s3proxy.log").toFile()).start();
        s3 = p;
        Files.writeString(dir.resolve(DevServices.S3_PID), Long.toString(p.pid()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
                break;
            } catch (IOException e) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("S3Proxy did not start on port " + port + " (see " + dir.resolve("s3proxy.log") + ")");
                }
                Thread.sleep(100);
            }
        }
        log(String.format("S3Proxy on 127.0.0.1:%d in %.1f s", port, secondsSince(start)));
    }

    private void stopS3() {
        Process p = s3;
        if (p == null) {
            return;
        }
        p.destroy();
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
        }
        deleteQuietly(dir.resolve(DevServices.S3_PID));
    }

    // ------------------------------------------------------------------------------ PostgreSQL

    private void startPostgres(Path dataDir) throws Exception {
        int port = dbPort;
        long start = System.nanoTime();
        // A postmaster left behind by a killed run would hold the port and the data directory.
        DevServices.stopOrphanedPostgres(dataDir);
        removeStaleLockFile(dataDir);
        boolean existing = Files.exists(dataDir.resolve("PG_VERSION"));
        Files.createDirectories(dataDir.getParent());
        try {
            EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                    .setPort(port)
                    .setDataDirectory(dataDir)
                    // zonky runs initdb only when the directory has no postgresql.conf, so this keeps the data.
                    .setCleanDataDirectory(false)
                    // Our shutdown hook stops it, after the broker.
                    .setRegisterShutdownHook(false)
                    .setServerConfig("listen_addresses", "127.0.0.1")
                    .setServerConfig("max_connections", "300")
                    .setServerConfig("shared_buffers", "256MB")
                    // A chat load writes WAL fast: with the default 1GB a checkpoint every half
                    // minute, each followed by a burst of full-page images. Checkpoints then come
                    // from checkpoint_timeout (5 min), as docs/operations.md advises for production.
                    .setServerConfig("max_wal_size", "4GB")
                    // zonky starts the server with -F (fsync off) and synchronous_commit=off; a -c
                    // after it wins, so these decide.
                    .setServerConfig("fsync", durableCommits ? "on" : "off")
                    .setServerConfig("synchronous_commit", durableCommits ? "on" : "off")
                    // PostgreSQL's own log (errors, lock waits and slow statements when they are
                    // turned on; each line stamped with time and pid) into this process's output,
                    // devservices.log: zonky's default pipes it to SLF4J, which has no provider here.
                    .setOutputRedirector(ProcessBuilder.Redirect.INHERIT)
                    .setErrorRedirector(ProcessBuilder.Redirect.INHERIT)
                    .setPGStartupWait(Duration.ofSeconds(60));
            pgSettings.forEach(builder::setServerConfig);
            postgres = builder.start();
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("PostgreSQL did not start on 127.0.0.1:" + port + " (see its output above; if "
                    + dataDir + " is broken or from another PostgreSQL major version, start with --fresh)", e);
        }
        boolean created = ensureRoleAndDatabase(port);
        log(String.format("postgres up in %.1f s on 127.0.0.1:%d (data %s: %s; %s; %s)", secondsSince(start), port, dataDir,
                existing ? "kept" : "new", created ? "created database " + DB_NAME : "database " + DB_NAME + " exists",
                commitSettings(port)));
    }

    /** What the server really runs with, read back, e.g. "fsync=on synchronous_commit=on". */
    static String commitSettings(int port) throws Exception {
        List<String> values = settings(port, "fsync", "synchronous_commit");
        return "fsync=" + values.get(0) + " synchronous_commit=" + values.get(1);
    }

    /** One setting of the running server, as {@code SHOW} gives it. */
    static String setting(int port, String name) throws Exception {
        return settings(port, name).get(0);
    }

    /** Settings of the running server, in the order named, read in one query. */
    private static List<String> settings(int port, String... names) throws Exception {
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
        try (Connection c = DriverManager.getConnection(url, "postgres", "");
             PreparedStatement s = c.prepareStatement("SELECT current_setting(n) FROM unnest(?::text[]) WITH ORDINALITY AS k(n, i) ORDER BY i")) {
            s.setArray(1, c.createArrayOf("text", names));
            List<String> values = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    values.add(rs.getString(1));
                }
            }
            return values;
        }
    }

    /** Role roost (LOGIN, password roost) and database roost owned by it; true if the database was new. */
    private static boolean ensureRoleAndDatabase(int port) throws Exception {
        String url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
        try (Connection c = DriverManager.getConnection(url, "postgres", ""); Statement s = c.createStatement()) {
            boolean roleExists;
            try (ResultSet rs = s.executeQuery("SELECT 1 FROM pg_roles WHERE rolname = '" + DB_USER + "'")) {
                roleExists = rs.next();
            }
            s.execute((roleExists ? "ALTER" : "CREATE") + " ROLE " + DB_USER + " LOGIN PASSWORD '" + DB_PASSWORD + "'");
            try (ResultSet rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + DB_NAME + "'")) {
                if (rs.next()) {
                    return false;
                }
            }
            s.execute("CREATE DATABASE " + DB_NAME + " OWNER " + DB_USER);
            return true;
        }
    }

    /**
     * postmaster.pid naming a live process that is not a postgres (a recycled pid after a hard kill)
     * makes PostgreSQL refuse to start; a dead pid it handles itself.
     */
    private static void removeStaleLockFile(Path dataDir) throws IOException {
        Path lock = dataDir.resolve("postmaster.pid");
        if (!Files.exists(lock)) {
            return;
        }
        List<String> lines = Files.readAllLines(lock);
        if (lines.isEmpty()) {
            Files.delete(lock);
            return;
        }
        try {
            long pid = Long.parseLong(lines.get(0).trim());
            boolean aliveOther = ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                    .map(h -> !h.info().command().map(c -> c.endsWith("/postgres")).orElse(true))
                    .orElse(false);
            if (aliveOther) {
                log("removing stale " + lock + " (pid " + pid + " is not a postgres)");
                Files.delete(lock);
            }
        } catch (NumberFormatException e) {
            Files.delete(lock);
        }
    }

    /** Stops PostgreSQL (pg_ctl stop -m fast), and makes sure no postmaster serves our data directory any more. */
    private synchronized void stopPostgres() {
        long t = System.nanoTime();
        if (postgres != null) {
            try {
                postgres.close();
            } catch (IOException | RuntimeException e) {
                log("postgres close failed: " + e);
            }
            postgres = null;
        }
        try {
            // pg_ctl gives up after 5 s, and a signal during start-up can leave a postmaster
            // that zonky had not handed back yet: make sure none serves our data directory.
            DevServices.stopOrphanedPostgres(dir.resolve(DevServices.PGDATA));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        log(String.format("postgres stopped in %.1f s", secondsSince(t)));
    }

    /**
     * Performs the requests of {@link DevServices#control} (db-stop, db-start, broker-stop,
     * broker-start): a daemon thread looks for the request file, removes it, does what it asks and
     * writes the reply.
     */
    private void watchControlRequests() {
        Path request = dir.resolve(DevServices.CONTROL_REQUEST);
        Thread watcher = new Thread(() -> {
            while (true) {
                try {
                    if (Files.exists(request)) {
                        String[] asked = Files.readString(request).trim().split(" ", 2);
                        Files.delete(request);
                        String outcome = asked.length == 2 ? controlRequest(asked[1]) : "malformed request";
                        Path tmp = dir.resolve(DevServices.CONTROL_REPLY + ".tmp");
                        Files.writeString(tmp, asked[0] + " " + outcome + "\n");
                        Files.move(tmp, dir.resolve(DevServices.CONTROL_REPLY), StandardCopyOption.ATOMIC_MOVE,
                                StandardCopyOption.REPLACE_EXISTING);
                    }
                    Thread.sleep(DevServices.CONTROL_POLL_MILLIS);
                } catch (InterruptedException e) {
                    return;
                } catch (IOException | RuntimeException e) {
                    log("control request failed: " + e);
                }
            }
        }, "devservices-control");
        watcher.setDaemon(true);
        watcher.start();
    }

    /** "ok" once done, else what went wrong. */
    private synchronized String controlRequest(String action) {
        log(action + " requested");
        if (shuttingDown) {
            return "the dev services are shutting down";
        }
        if (action.startsWith("db-") && !db || action.startsWith("broker-") && brokerSetup == null) {
            return "not started by these dev services: " + action;
        }
        try {
            switch (action) {
                case "db-stop" -> stopPostgres();
                case "db-start" -> {
                    if (postgres == null) {
                        startPostgres(dir.resolve(DevServices.PGDATA));
                    }
                }
                case "broker-stop" -> stopBroker();
                case "broker-start" -> {
                    if (broker == null) {
                        startBroker(brokerSetup);
                    }
                }
                default -> {
                    return "unknown action " + action;
                }
            }
            return "ok";
        } catch (Exception e) {
            log(action + " failed: " + e);
            e.printStackTrace(System.out);
            return e.toString().replace('\n', ' ');
        }
    }

    // ------------------------------------------------------------------------------ RocketMQ

    private void startRocketMq(Path home, int namesrvPort, int brokerPort, int pullMax) throws Exception {
        long start = System.nanoTime();
        String namesrv = "127.0.0.1:" + namesrvPort;

        NamesrvConfig namesrvConfig = new NamesrvConfig();
        namesrvConfig.setRocketmqHome(home.toString());
        namesrvConfig.setKvConfigPath(home.resolve("namesrv/kvConfig.json").toString());
        namesrvConfig.setConfigStorePath(home.resolve("namesrv/namesrv.properties").toString());
        NettyServerConfig namesrvNetty = new NettyServerConfig();
        namesrvNetty.setBindAddress("127.0.0.1");
        namesrvNetty.setListenPort(namesrvPort);
        // The name server's own client only calls brokers; its default scan for "available name
        // servers" would keep dialling <host address>:port, which a loopback-bound server refuses.
        NettyClientConfig namesrvClient = new NettyClientConfig();
        namesrvClient.setScanAvailableNameSrv(false);
        nameServer = new NamesrvController(namesrvConfig, namesrvNetty, namesrvClient);
        if (!nameServer.initialize()) {
            throw new IllegalStateException("name server did not initialize");
        }
        nameServer.start();

        brokerSetup = new BrokerSetup(home, namesrv, brokerPort, pullMax);
        startBroker(brokerSetup);
        log(String.format("rocketmq up in %.1f s: name server %s, broker 127.0.0.1:%d (also :%d fast remoting, :%d HA), "
                + "store %s", secondsSince(start), namesrv, brokerPort, brokerPort - 2, brokerPort + 1, home.resolve("store")));
    }

    /** Where the broker keeps its store, which name server it registers with, its port and pull size. */
    private record BrokerSetup(Path home, String namesrv, int brokerPort, int pullMax) {
    }

    /** Starts the broker (fresh configuration objects each time) and returns once a client can send. */
    private void startBroker(BrokerSetup setup) throws Exception {
        long start = System.nanoTime();
        Path home = setup.home();
        String namesrv = setup.namesrv();
        int brokerPort = setup.brokerPort();
        int pullMax = setup.pullMax();
        BrokerConfig brokerConfig = new BrokerConfig();
        brokerConfig.setRocketmqHome(home.toString());
        brokerConfig.setBrokerName("roost-dev");
        brokerConfig.setBrokerClusterName("RoostDevCluster");
        brokerConfig.setNamesrvAddr(namesrv);
        brokerConfig.setBrokerIP1("127.0.0.1");
        brokerConfig.setBrokerIP2("127.0.0.1");
        brokerConfig.setAutoCreateTopicEnable(true);
        brokerConfig.setAutoCreateSubscriptionGroup(true);
        // One POP revive thread instead of 8 (Roost's remoting consumers do not use POP); each one
        // finishes a 1 s sleep before the broker's shutdown moves on, ~4 s of every stop.
        brokerConfig.setReviveQueueNum(1);
        // The remoting server listens on brokerPort, the "fast" (VIP) one on brokerPort - 2 (it
        // inherits the bind address); the HA port is set below.
        NettyServerConfig brokerNetty = new NettyServerConfig();
        brokerNetty.setBindAddress("127.0.0.1");
        brokerNetty.setListenPort(brokerPort);
        MessageStoreConfig store = new MessageStoreConfig();
        store.setStorePathRootDir(home.resolve("store").toString());
        store.setStorePathCommitLog(home.resolve("store/commitlog").toString());
        // Small files: the defaults allocate gigabytes up front.
        store.setMappedFileSizeCommitLog(16 * 1024 * 1024);
        store.setMappedFileSizeConsumeQueue(30_000 * 20);
        store.setMaxHashSlotNum(10_000);
        store.setMaxIndexNum(40_000);
        store.setMappedFileSizeTimerLog(4 * 1024 * 1024);
        // Roost sends no delayed (timer) messages; the timer wheel's flush and dequeue threads were a
        // third of the idle broker's CPU, which the benchmarks share the cores with.
        store.setTimerWheelEnable(false);
        store.setDiskMaxUsedSpaceRatio(98);
        if (pullMax > 0) {
            store.setMaxTransferCountOnMessageInMemory(pullMax);
            store.setMaxTransferBytesOnMessageInMemory(Math.max(store.getMaxTransferBytesOnMessageInMemory(), pullMax * 1024));
        }
        // Explicit, so it cannot drift onto another service's port (the stock default is 10912).
        store.setHaListenPort(brokerPort + 1);
        // The hook runs inside broker.shutdown() right after the broker unregistered from the name
        // server: at the process's shutdown the name server (~3 s of waiting for its threads) then
        // stops alongside the broker; a broker-stop leaves it running.
        BrokerController started = new BrokerController(brokerConfig, brokerNetty, new NettyClientConfig(), store, null,
                b -> {
                    if (shuttingDown) {
                        stopNameServerInBackground();
                    }
                });
        if (!started.initialize()) {
            throw new IllegalStateException("broker did not initialize (see " + home.resolve("logs/rocketmq.log") + ")");
        }
        broker = started;
        started.start();
        awaitRoutable(namesrv, started);
        log(String.format("broker up in %.1f s on 127.0.0.1:%d", secondsSince(start), brokerPort));
    }

    /** Stops the broker (a broker-stop: its ports refuse connections until a broker-start). */
    private synchronized void stopBroker() {
        BrokerController b = broker;
        if (b == null) {
            return;
        }
        long t = System.nanoTime();
        try {
            b.shutdown();
        } catch (RuntimeException e) {
            log("broker shutdown failed: " + e);
        }
        broker = null;
        log(String.format("broker stopped in %.1f s", secondsSince(t)));
    }

    /** Ready means a client can send: the broker registered and a topic can be auto-created. */
    private static void awaitRoutable(String namesrv, BrokerController broker) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("roost-devservices-probe");
        producer.setNamesrvAddr(namesrv);
        producer.setVipChannelEnabled(false);
        producer.setInstanceName("devservices-probe");
        producer.setRetryTimesWhenSendFailed(0);
        producer.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                try {
                    producer.send(new Message("roost-devservices-ready", "ready".getBytes(StandardCharsets.UTF_8)), 3000);
                    return;
                } catch (Exception e) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("broker not routable after 60 s", e);
                    }
                    Thread.sleep(200);
                    // broker.start() registers with the name servers it has already found reachable
                    // (an asynchronous scan); if that scan was late, the next try is 10 s later.
                    // Register again now that the scan has had time.
                    broker.registerBrokerAll(true, false, true);
                }
            }
        } finally {
            producer.shutdown();
        }
    }

    /** One log file for RocketMQ (broker, name server, client) and one for its periodic statistics. */
    private static Path writeLogbackConfig(Path home) throws IOException {
        String logs = xml(home.resolve("logs").toString());
        String config = """
                <?xml version="1.0" encoding="UTF-8"?>
                <!-- Written by io.roost.devservices.DevServicesProcess on every start. -->
                <configuration>
                  <appender name="main" class="ch.qos.logback.core.rolling.RollingFileAppender">
                    <file>LOGS/rocketmq.log</file>
                    <rollingPolicy class="ch.qos.logback.core.rolling.FixedWindowRollingPolicy">
                      <fileNamePattern>LOGS/rocketmq.%i.log.gz</fileNamePattern>
                      <minIndex>1</minIndex>
                      <maxIndex>3</maxIndex>
                    </rollingPolicy>
                    <triggeringPolicy class="ch.qos.logback.core.rolling.SizeBasedTriggeringPolicy">
                      <maxFileSize>50MB</maxFileSize>
                    </triggeringPolicy>
                    <encoder>
                      <pattern>%d{yyyy-MM-dd HH:mm:ss.SSS} %-5p [%t] %c - %m%n</pattern>
                    </encoder>
                  </appender>
                  <appender name="stats" class="ch.qos.logback.core.rolling.RollingFileAppender">
                    <file>LOGS/rocketmq-stats.log</file>
                    <rollingPolicy class="ch.qos.logback.core.rolling.FixedWindowRollingPolicy">
                      <fileNamePattern>LOGS/rocketmq-stats.%i.log.gz</fileNamePattern>
                      <minIndex>1</minIndex>
                      <maxIndex>2</maxIndex>
                    </rollingPolicy>
                    <triggeringPolicy class="ch.qos.logback.core.rolling.SizeBasedTriggeringPolicy">
                      <maxFileSize>20MB</maxFileSize>
                    </triggeringPolicy>
                    <encoder>
                      <pattern>%d{yyyy-MM-dd HH:mm:ss.SSS} %-5p [%t] %c - %m%n</pattern>
                    </encoder>
                  </appender>
                  <logger name="RocketmqStats" additivity="false" level="INFO"><appender-ref ref="stats"/></logger>
                  <logger name="RocketmqCommercial" additivity="false" level="INFO"><appender-ref ref="stats"/></logger>
                  <logger name="RocketmqWaterMark" additivity="false" level="INFO"><appender-ref ref="stats"/></logger>
                  <logger name="RocketmqTraffic" additivity="false" level="INFO"><appender-ref ref="stats"/></logger>
                  <logger name="RocketmqColdCtr" additivity="false" level="INFO"><appender-ref ref="stats"/></logger>
                  <root level="INFO"><appender-ref ref="main"/></root>
                </configuration>
                """.replace("LOGS", logs);
        Path file = home.resolve("logback.xml");
        Files.writeString(file, config);
        return file;
    }

    private static String xml(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    // ------------------------------------------------------------------------------ shutdown

    private synchronized void shutdown() {
        shuttingDown = true;
        long start = System.nanoTime();
        log("shutting down");
        deleteQuietly(dir.resolve(DevServices.READY));
        stopS3();
        stopBroker();
        stopNameServerInBackground(); // no-op if the broker's hook already did
        Thread stopper = nameServerStopper;
        if (stopper != null) {
            try {
                stopper.join(TimeUnit.SECONDS.toMillis(40));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (db) {
            stopPostgres();
        }
        // The pid file is ours unless a newer start has already replaced it.
        Path pidFile = dir.resolve(DevServices.PID);
        try {
            if (Files.exists(pidFile) && Files.readString(pidFile).trim().equals(Long.toString(ProcessHandle.current().pid()))) {
                Files.delete(pidFile);
            }
        } catch (IOException ignored) {
            // best effort
        }
        log(String.format("stopped in %.1f s", secondsSince(start)));
    }

    private void stopNameServerInBackground() {
        NamesrvController ns = nameServer;
        if (ns == null || nameServerStopping.getAndSet(true)) {
            return;
        }
        nameServerStopper = new Thread(() -> {
            long t = System.nanoTime();
            try {
                ns.shutdown();
            } catch (RuntimeException e) {
                log("name server shutdown failed: " + e);
            }
            log(String.format("name server stopped in %.1f s", secondsSince(t)));
        }, "devservices-namesrv-shutdown");
        nameServerStopper.start();
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // best effort
        }
    }

    private static void deleteTree(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(path)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
