package io.roost.platform.messaging;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Where RocketMQ is ({@code ROOST_ROCKETMQ_NAMESRV}, host:port[;host:port]), how Roost's clients
 * talk to it, and whether Roost creates its topics ({@code ROOST_ROCKETMQ_CREATE_TOPICS},
 * {@code ROOST_ROCKETMQ_TOPIC_QUEUES}).
 */
@ApplicationScoped
public class RocketMqSettings {

    @Inject
    @ConfigProperty(name = "roost.rocketmq.namesrv", defaultValue = "127.0.0.1:19876")
    String nameServer;

    @Inject
    @ConfigProperty(name = "roost.rocketmq.send-timeout-ms", defaultValue = "3000")
    int sendTimeoutMs;

    @Inject
    @ConfigProperty(name = "roost.rocketmq.create-topics", defaultValue = "true")
    boolean createTopics;

    @Inject
    @ConfigProperty(name = "roost.rocketmq.topic-queues", defaultValue = "8")
    int topicQueues;

    /**
     * How often a client asks the name server for its topics' routes, and how often a consumer
     * rebalances its queues: RocketMQ's defaults (30 s and 20 s) made a queue added to a topic
     * wait that long for its first consumer. A rebalance is one broker round trip per topic.
     */
    static final int ROUTE_POLL_MS = 2_000;

    public boolean createTopics() {
        return createTopics;
    }

    public int topicQueues() {
        if (topicQueues < 1 || topicQueues > 1024) {
            throw new IllegalStateException("ROOST_ROCKETMQ_TOPIC_QUEUES must be 1..1024, not " + topicQueues);
        }
        return topicQueues;
    }

    public String nameServer() {
        return nameServer;
    }

    public int sendTimeoutMs() {
        return sendTimeoutMs;
    }

    /**
     * JVM-wide settings of the RocketMQ client, before its first client starts: its own log files
     * go with the server's logs, not to ~/logs; consumers rebalance every {@link #ROUTE_POLL_MS}
     * (read once, when the client's rebalance service class loads).
     */
    static void configureClients() {
        if (System.getProperty("rocketmq.client.rebalance.waitInterval") == null) {
            System.setProperty("rocketmq.client.rebalance.waitInterval", Integer.toString(ROUTE_POLL_MS));
        }
        String logDir = System.getProperty("jboss.server.log.dir");
        // the 5.x client's logback configuration reads rocketmq.log.root (4.x read rocketmq.client.logRoot)
        if (logDir != null && System.getProperty("rocketmq.log.root") == null) {
            System.setProperty("rocketmq.log.root", logDir + "/rocketmq");
        }
    }
}
