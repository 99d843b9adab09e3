package io.roost.platform.messaging;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Where RocketMQ is: {@code ROOST_ROCKETMQ_NAMESRV} (host:port[;host:port]). */
@ApplicationScoped
public class RocketMqSettings {

    @Inject
    @ConfigProperty(name = "roost.rocketmq.namesrv", defaultValue = "127.0.0.1:19876")
    String nameServer;

    @Inject
    @ConfigProperty(name = "roost.rocketmq.send-timeout-ms", defaultValue = "3000")
    int sendTimeoutMs;

    public String nameServer() {
        return nameServer;
    }

    public int sendTimeoutMs() {
        return sendTimeoutMs;
    }

    /** RocketMQ clients write their own log files; keep them with the server's logs, not in ~/logs. */
    static void routeClientLogs() {
        String logDir = System.getProperty("jboss.server.log.dir");
        // the 5.x client's logback configuration reads rocketmq.log.root (4.x read rocketmq.client.logRoot)
        if (logDir != null && System.getProperty("rocketmq.log.root") == null) {
            System.setProperty("rocketmq.log.root", logDir + "/rocketmq");
        }
    }
}
