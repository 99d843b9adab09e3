package io.roost.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.client.device.RoostDevice;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A login reaches the login log through its topic within seconds, on a fresh broker too (every
 * topic exists before its first event: TopicsInContainerIT checks the declared ones).
 */
class TopicsIT extends DeployedRoost {

    @Test
    void aLoginIsInTheLoginLogWithinThreeSeconds() throws Exception {
        TestUsers.User user = TestUsers.register(baseUrl, "topics-");
        RoostDevice device = Devices.online(baseUrl, user, "web", "w", new Devices.Recorder());
        try {
            Duration took = LoginLog.await(baseUrl, user.id(), List.of("login"));
            assertTrue(took.compareTo(Duration.ofSeconds(3)) < 0, "the login reached the login log after " + took);
        } finally {
            device.close();
            device.stopped().get(10, TimeUnit.SECONDS);
        }
    }
}
