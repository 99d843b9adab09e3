package io.roost.devservices;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Comparator;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
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

/** The background process of {@link DevServices}: PostgreSQL + RocketMQ until SIGTERM. */
final class DevServicesProcess {

    private EmbeddedPostgres postgres;
    private NamesrvController nameServer;
    private BrokerController broker;

    private DevServicesProcess() {
    }

    static void run(Map<String, String> options) throws Exception {
        Path dir = Path.of(DevServices.required(options, "dir")).toAbsolutePath();
        boolean fresh = options.containsKey("fresh");
        DevServicesProcess services = new DevServicesProcess();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> services.shutdown(dir), "devservices-shutdown"));
        String lifetime = options.get("max-lifetime-minutes");
        if (lifetime != null) {
            // Safety net: a build that died without calling stop does not leave us running for ever.
            Thread guard = new Thread(() -> {
                try {
                    TimeUnit.MINUTES.sleep(Long.parseLong(lifetime));
                    log("max lifetime of " + lifetime + " min reached; stopping");
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
            if (!options.containsKey("no-db")) {
                int port = Integer.parseInt(DevServices.required(options, "db-port"));
                services.startPostgres(dir.resolve("pgdata"), port, fresh);
                ready.setProperty("db.url", "jdbc:postgresql://127.0.0.1:" + port + "/roost");
                ready.setProperty("db.user", "roost");
                ready.setProperty("db.password", "roost");
            }
            if (!options.containsKey("no-rocketmq")) {
                int namesrvPort = Integer.parseInt(DevServices.required(options, "namesrv-port"));
                int brokerPort = Integer.parseInt(DevServices.required(options, "broker-port"));
                services.startRocketMq(dir.resolve("rocketmq"), namesrvPort, brokerPort, fresh);
                ready.setProperty("rocketmq.namesrv", "127.0.0.1:" + namesrvPort);
            }
        } catch (Throwable e) {
            log("start failed: " + e);
            e.printStackTrace();
            System.exit(1);
        }
        DevServices.writeReady(dir, ready);
        log("ready");
        Thread.currentThread().join(); // until SIGTERM/SIGINT runs the shutdown hook
    }

    private void startPostgres(Path dataDir, int port, boolean fresh) throws Exception {
        long start = System.nanoTime();
        if (fresh) {
            deleteTree(dataDir);
        }
        Files.createDirectories(dataDir.getParent());
        postgres = EmbeddedPostgres.builder()
                .setPort(port)
                .setDataDirectory(dataDir)
                .setCleanDataDirectory(false)
                .setServerConfig("listen_addresses", "127.0.0.1")
                .setServerConfig("max_connections", "300")
                .setServerConfig("shared_buffers", "256MB")
                .setPGStartupWait(java.time.Duration.ofSeconds(60))
                .start();
        try (Connection c = postgres.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute("""
                    DO $$ BEGIN
                      IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'roost') THEN
                        CREATE ROLE roost LOGIN PASSWORD 'roost';
                      END IF;
                    END $$""");
            try (ResultSet rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = 'roost'")) {
                if (!rs.next()) {
                    s.execute("CREATE DATABASE roost OWNER roost");
                }
            }
        }
        log(String.format("postgres up on 127.0.0.1:%d in %.1f s (data %s)", port, secondsSince(start), dataDir));
    }

    private void startRocketMq(Path home, int namesrvPort, int brokerPort, boolean fresh) throws Exception {
        long start = System.nanoTime();
        // Without it the name server drops the broker's topic routes ("No route info of this topic").
        System.setProperty(RemotingCommand.REMOTING_VERSION_KEY, Integer.toString(MQVersion.CURRENT_VERSION));
        if (fresh) {
            deleteTree(home.resolve("store"));
            deleteTree(home.resolve("config"));
        }
        Files.createDirectories(home);

        NamesrvConfig namesrvConfig = new NamesrvConfig();
        namesrvConfig.setRocketmqHome(home.toString());
        namesrvConfig.setKvConfigPath(home.resolve("config/namesrv-kv.json").toString());
        NettyServerConfig namesrvNetty = new NettyServerConfig();
        namesrvNetty.setListenPort(namesrvPort);
        nameServer = new NamesrvController(namesrvConfig, namesrvNetty);
        if (!nameServer.initialize()) {
            throw new IllegalStateException("name server did not initialize");
        }
        nameServer.start();

        String namesrv = "127.0.0.1:" + namesrvPort;
        BrokerConfig brokerConfig = new BrokerConfig();
        brokerConfig.setRocketmqHome(home.toString());
        brokerConfig.setBrokerName("roost-dev");
        brokerConfig.setBrokerClusterName("RoostDevCluster");
        brokerConfig.setNamesrvAddr(namesrv);
        brokerConfig.setBrokerIP1("127.0.0.1");
        brokerConfig.setBrokerIP2("127.0.0.1");
        brokerConfig.setAutoCreateTopicEnable(true);
        brokerConfig.setAutoCreateSubscriptionGroup(true);
        NettyServerConfig brokerNetty = new NettyServerConfig();
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
        store.setDiskMaxUsedSpaceRatio(98);
        store.setHaListenPort(brokerPort + 1);
        broker = new BrokerController(brokerConfig, brokerNetty, new NettyClientConfig(), store);
        // Broker config files (topics, offsets, subscriptions) live under the store root.
        if (!broker.initialize()) {
            throw new IllegalStateException("broker did not initialize");
        }
        broker.start();
        awaitRoutable(namesrv);
        log(String.format("rocketmq up in %.1f s: name server %s, broker 127.0.0.1:%d (also %d, %d)",
                secondsSince(start), namesrv, brokerPort, brokerPort - 2, brokerPort + 1));
    }

    /** Ready means a client can send: the broker registered and a topic can be auto-created. */
    private static void awaitRoutable(String namesrv) throws Exception {
        DefaultMQProducer producer = new DefaultMQProducer("roost-devservices-probe");
        producer.setNamesrvAddr(namesrv);
        producer.setVipChannelEnabled(false);
        producer.setInstanceName("devservices-probe");
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
                    Thread.sleep(250);
                }
            }
        } finally {
            producer.shutdown();
        }
    }

    private synchronized void shutdown(Path dir) {
        long start = System.nanoTime();
        try {
            Files.deleteIfExists(dir.resolve(DevServices.READY));
        } catch (IOException ignored) {
            // best effort
        }
        if (broker != null) {
            broker.shutdown();
            broker = null;
        }
        if (nameServer != null) {
            nameServer.shutdown();
            nameServer = null;
        }
        if (postgres != null) {
            try {
                postgres.close();
            } catch (IOException e) {
                log("postgres close failed: " + e);
            }
            postgres = null;
        }
        log(String.format("stopped in %.1f s", secondsSince(start)));
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

    private static double secondsSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    static void log(String message) {
        System.out.println("[devservices] " + message);
        System.out.flush();
    }
}
