package io.roost.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.platform.messaging.RocketMqSettings;
import io.roost.platform.messaging.TopicDeclaration;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
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
 * found its queues 20 s later). The topics are the ones the modules declare, read in the container
 * from the same beans TopicProvisioner reads, so a topic a module adds is checked without a list
 * here to forget it in; the login test runs as a client.
 */
@ExtendWith(ArquillianExtension.class)
class TopicsIT {

    @Deployment
    static WebArchive deployment() {
        return Deployments.roost().addClasses(TopicsIT.class, BrokerAdmin.class);
    }

    @Inject
    @Any
    Instance<TopicDeclaration> declarations;

    @Inject
    RocketMqSettings settings;

    @Test
    void everyTopicExistsBeforeItsFirstEvent() throws Exception {
        Set<String> declared = new TreeSet<>();
        declarations.forEach(d -> declared.addAll(d.topics()));
        // two that show the declarations were all read: the configured MQTT status topic, and chat's second one
        assertTrue(declared.containsAll(Set.of("GID_ROOST_IT_MQTT", "roost-offline-push")), declared.toString());
        List<String> missing = new ArrayList<>();
        try (BrokerAdmin broker = new BrokerAdmin(settings.nameServer())) {
            for (String topic : declared) {
                if (!broker.exists(topic)) {
                    missing.add(topic);
                }
            }
        }
        assertEquals(List.of(), missing, "declared topics the broker does not have (declared: " + declared + ")");
    }

    @Test
    @RunAsClient
    void aLoginIsInTheLoginLogWithinThreeSeconds(@ArquillianResource URL baseUrl) throws Exception {
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
