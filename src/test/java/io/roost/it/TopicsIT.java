package io.roost.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Every topic Roost publishes to or consumes from exists once it is deployed on a fresh broker, so
 * the first events are as quick as later ones (a consumer on a topic the broker did not know yet
 * found its queues 20 s later).
 */
class TopicsIT extends DeployedRoost {

    /** The topics of the test configuration (ROOST_MQTT_STATUS_TOPIC is GID_ROOST_IT_MQTT). */
    static final List<String> TOPICS = List.of("roost-sms", "roost-group-events", "roost-deliveries", "roost-session-kicks",
            "roost-login-events", "roost-rtc-events", "roost-room-events", "roost-chat-events",
            "GID_ROOST_IT_MQTT");

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
        TestUsers.User user = TestUsers.register(baseUrl, "topics-");
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
