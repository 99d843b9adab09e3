package io.roost.it;

import static io.roost.it.Http.json;
import static io.roost.it.Wait.sleep;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.devservices.DevServices;
import jakarta.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * The RocketMQ broker is stopped (its port refuses connections) while clients keep sending chat
 * messages, reading their account and posting Agora notifications, none of which needs the broker
 * to be answered: every one must succeed. Health reports the broker down meanwhile, on
 * {@code /api/health} and on the management port's readiness check. The outbox holds the chat
 * events (their relay fails at every try); once the broker is back it must have sent all of them
 * within {@link #DELIVERED} and a consumer must receive each one. The outage lasts long enough for
 * a row's own exponential backoff (2, 4, 8 s after its 1st-3rd failure: the first rows' next try
 * comes 14 s after they were written, 4 s after the broker's return) to outlast that bound: the
 * relay must not wait for it.
 *
 * <p>The ITs share this broker: it is started again in a finally, whatever happened.
 */
@Isolated("stops the suite's RocketMQ broker under load")
class BrokerOutageIT extends DeployedRoost {

    static final Duration OUTAGE = Duration.ofSeconds(10);
    static final Duration DELIVERED = Duration.ofSeconds(3);
    /** Health may say so later than the outbox delivers: it is polled until then. */
    static final Duration HEALTHY_AGAIN = Duration.ofSeconds(10);
    static final long PAUSE_MILLIS = 200;

    @RegisterExtension
    static final TopicEvents events = new TopicEvents("roost-chat-events", "msgId");

    @Test
    void apisThatNeedNoBrokerKeepAnsweringAndTheOutboxDeliversEverythingSoonAfterItsReturn() throws Exception {
        Path devServices = Path.of(System.getProperty("roost.test.data", "target/devservices"));
        Http http = http();
        Ncs ncs = ncs();
        TestUsers.User a = TestUsers.register(baseUrl, "bo-a-");
        TestUsers.User b = TestUsers.register(baseUrl, "bo-b-");
        String channel = "broker-outage-" + UUID.randomUUID().toString().substring(0, 8);
        assertEquals(200, http.get("api/health", null).statusCode(), "healthy before the outage");

        List<String> msgIds = new ArrayList<>();
        List<String> wrong = new ArrayList<>();
        boolean healthDown = false;
        boolean readinessDown = false;
        long started = 0;
        DevServices.broker(devServices, false);
        try {
            long until = System.nanoTime() + OUTAGE.toNanos();
            for (long n = 1; System.nanoTime() < until; n++) {
                HttpResponse<String> sent = http.post("api/v1/chat/messages", a.auth(), "{\"peer\":\"" + b.id()
                        + "\",\"sendId\":\"bo-" + n + "\",\"type\":\"text\",\"text\":\"during the outage " + n + "\"}");
                if (sent.statusCode() == 201) {
                    msgIds.add(json(sent).getString("msgId"));
                } else {
                    wrong.add("chat send " + sent.statusCode() + " " + sent.body());
                }
                HttpResponse<String> me = http.get("api/v1/accounts/me", a.auth());
                if (me.statusCode() != 200) {
                    wrong.add("accounts/me " + me.statusCode() + " " + me.body());
                }
                HttpResponse<String> notice = ncs.send(Ncs.member(UUID.randomUUID().toString(), n % 2 == 1 ? 103 : 104,
                        channel, 7, n, System.currentTimeMillis() / 1000, null));
                if (notice.statusCode() != 200) {
                    wrong.add("webhook " + notice.statusCode() + " " + notice.body());
                }
                healthDown |= brokerReportedDown(http.get("api/health", null));
                readinessDown |= readiness() == 503;
                sleep(PAUSE_MILLIS);
            }
            assertEquals(msgIds.size(), backlog(msgIds), "the outbox holds every chat event while the broker is away");
        } finally {
            DevServices.broker(devServices, true);
            started = System.nanoTime();
        }

        long deadline = started + DELIVERED.toNanos();
        long empty;
        while ((empty = backlog(msgIds)) > 0 && System.nanoTime() < deadline) {
            sleep(100);
        }
        double deliveredAfter = (System.nanoTime() - started) / 1e9;
        System.out.printf("[BrokerOutageIT] %d chat messages sent during a %d s outage; outbox empty %.2f s after the broker's return%n",
                msgIds.size(), OUTAGE.toSeconds(), deliveredAfter);
        assertEquals(List.of(), wrong, "every request that needs no broker is answered during the outage");
        assertTrue(msgIds.size() > 10, "messages were sent during the outage: " + msgIds.size());
        assertTrue(healthDown, "/api/health reported the broker down during the outage");
        assertTrue(readinessDown, "the readiness check reported down during the outage");
        assertEquals(0, empty, "the outbox sent everything within " + DELIVERED.toSeconds() + " s of the broker's return");
        for (String msgId : msgIds) {
            long left = Math.max(1, deadline + TimeUnit.SECONDS.toNanos(5) - System.nanoTime());
            assertNotNull(events.events(msgId).poll(left, TimeUnit.NANOSECONDS), "roost-chat-events received " + msgId);
        }
        long healthy = System.nanoTime() + HEALTHY_AGAIN.toNanos();
        while (http.get("api/health", null).statusCode() != 200 && System.nanoTime() < healthy) {
            sleep(200);
        }
        assertEquals(200, http.get("api/health", null).statusCode(), "healthy again after the broker's return");
        assertEquals(200, readiness(), "ready again after the broker's return");
    }

    /** A 503 whose checks say the broker is down and the database up. */
    private static boolean brokerReportedDown(HttpResponse<String> health) {
        if (health.statusCode() != 503) {
            return false;
        }
        JsonObject checks = json(health).getJsonObject("checks");
        return !checks.getJsonObject("rocketmq").getBoolean("up") && checks.getJsonObject("database").getBoolean("up");
    }

    /** The status of the management port's MicroProfile readiness check. */
    private static int readiness() throws Exception {
        URI ready = URI.create("http://127.0.0.1:" + System.getProperty("roost.test.mgmt.port", "9990") + "/health/ready");
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(ready).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** How many of these messages' chat events the outbox still holds (an event is keyed by its msgIds). */
    private static long backlog(List<String> msgIds) throws Exception {
        try (Connection c = Database.connect();
             PreparedStatement s = c.prepareStatement("""
                     SELECT count(*) FROM outbox, unnest(string_to_array(message_key, ' ')) AS k(msg_id) WHERE k.msg_id = ANY(?)""")) {
            s.setArray(1, c.createArrayOf("varchar", msgIds.toArray()));
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
