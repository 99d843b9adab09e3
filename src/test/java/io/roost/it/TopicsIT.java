package io.roost.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every topic Roost publishes to or consumes from exists once it is deployed on a fresh broker, so
 * the first events are as quick as later ones (a consumer on a topic the broker did not know yet
 * found its queues 20 s later).
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class TopicsIT {

    /** The topics of the test configuration (ROOST_MQTT_STATUS_TOPIC is GID_ROOST_IT_MQTT). */
    static final List<String> TOPICS = List.of("roost-sms", "roost-group-events", "roost-deliveries", "roost-session-kicks",
            "roost-login-events", "roost-rtc-events", "roost-room-events", "GID_ROOST_IT_MQTT");

    @Deployment(testable = false)
    static WebArchive deployment() {
        return Deployments.roost();
    }

    @ArquillianResource
    URL baseUrl;

    @Test
    void everyTopicExistsBeforeItsFirstEvent() throws Exception {
        try (BrokerAdmin broker = new BrokerAdmin(System.getProperty("roost.test.namesrv"))) {
            for (String topic : TOPICS) {
                assertTrue(broker.exists(topic), topic + " does not exist on the broker");
            }
        }
    }

    @Test
    void aLoginIsInTheLoginLogWithinThreeSeconds() throws Exception {
        TestUsers.Registered user = TestUsers.register(baseUrl, "topics-");
        WsDevice device = WsDevice.login(baseUrl, user.token(), "web", "w");
        try {
            Duration took = LoginLog.await(baseUrl, user.id(), List.of("login"));
            assertTrue(took.compareTo(Duration.ofSeconds(3)) < 0, "the login reached the login log after " + took);
        } finally {
            device.bye();
            device.closed.get(10, TimeUnit.SECONDS);
        }
    }
}
