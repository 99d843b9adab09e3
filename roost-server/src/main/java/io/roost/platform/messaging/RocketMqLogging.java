package io.roost.platform.messaging;

import jakarta.annotation.PreDestroy;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import org.apache.rocketmq.logging.ch.qos.logback.classic.LoggerContext;
import org.apache.rocketmq.logging.org.slf4j.LoggerFactory;

/**
 * The RocketMQ client logs through its own shaded logback, whose async appender starts a thread
 * that nothing stops. That thread holds the deployment's class loader, so every undeploy (a
 * redeploy, or each test class of the suite) left a whole deployment on the heap until the server
 * ran out of it. Stopping the client's logger context when Roost stops ends the thread.
 */
@Singleton
@Startup
public class RocketMqLogging {

    @PreDestroy
    void stop() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            context.stop();
        }
    }
}
