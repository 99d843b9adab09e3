package io.roost.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.client.device.Conversation;
import io.roost.client.device.RoostDevice;
import io.roost.it.TestUsers.User;
import io.roost.it.chat.Chats;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Prometheus endpoint on the management interface, scraped as Prometheus would: Roost's
 * meters move with real traffic (a login, a chat message, a push acknowledged, one never
 * acknowledged), latencies are real histograms, WildFly's JVM and pool meters are there, no label
 * carries an id, and the console's chat charts count the same messages. The suite's server runs
 * with ROOST_METRICS_AUTH=false; TwoNodeIT checks that a node without it refuses a scrape.
 * Other classes run beside this one, so counters are checked to have grown at least by ours.
 */
class MetricsIT extends DeployedRoost {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final URI METRICS = URI.create("http://127.0.0.1:" + System.getProperty("roost.test.mgmt.port", "9990") + "/metrics");
    /** Every label a Roost meter may carry: each has a handful of values, none is an id. */
    private static final Set<String> LABELS = Set.of("WF_DEPLOYMENT", "device_type", "reason", "kind", "outcome", "group", "store", "le");

    @Test
    void countersMoveWithALoginAMessageAnAcknowledgementAndAnAckTimeout() throws Exception {
        Scrape before = Scrape.now();
        Chats chats = new Chats(baseUrl);
        User a = chats.user();
        User b = chats.roaming();
        Devices.Recorder heard = new Devices.Recorder();
        try (RoostDevice phone = Devices.online(baseUrl, b, "android", "metrics-phone", heard)) {
            chats.sendText(a, b, "counted once");
            heard.awaitMessages(Conversation.user(a.id()), 1, Duration.ofSeconds(10));
            // the device acknowledges on its own; its ack is counted when the server has it
            Wait.until("the acknowledgement's latency recorded", Duration.ofSeconds(10),
                    () -> Scrape.now().sum("roost_chat_ack_seconds_count") > before.sum("roost_chat_ack_seconds_count"));
        }
        WsDevice silent = WsDevice.login(baseUrl, b.token(), "android", "metrics-silent");
        silent.autoAck = false;
        chats.sendText(a, b, "never acknowledged");
        silent.await("chatMsg");
        silent.heartbeat();
        silent.await("chatMsg"); // pushed again after the suite's 3 s deadline
        silent.heartbeat();
        assertEquals("ack_timeout", silent.await("kick").getString("reason"));

        Scrape after = Scrape.now();
        Predicate<Map<String, String>> android = l -> "android".equals(l.get("device_type"));
        Predicate<Map<String, String>> oneToOne = l -> "one_to_one".equals(l.get("kind"));
        Predicate<Map<String, String>> ackTimeout = l -> "ack_timeout".equals(l.get("reason"));
        assertGrew(before, after, "roost_gateway_logins_total", android, 2);
        assertGrew(before, after, "roost_chat_sends_total", oneToOne, 2);
        assertGrew(before, after, "roost_chat_pushes_total", oneToOne, 2);
        assertGrew(before, after, "roost_chat_again_pushes_total", l -> true, 1);
        assertGrew(before, after, "roost_chat_ack_timeouts_total", l -> true, 1);
        assertGrew(before, after, "roost_gateway_kicks_total", ackTimeout, 1);
        assertGrew(before, after, "roost_gateway_heartbeats_total", l -> true, 2);
        assertGrew(before, after, "roost_store_call_seconds_count", l -> "ChatStore".equals(l.get("store")), 1);

        // no label names a user: not as a label, not as a value
        for (Sample s : after.samples) {
            if (s.name.startsWith("roost_")) {
                assertTrue(LABELS.containsAll(s.labels.keySet()), "a label outside " + LABELS + ": " + s);
                assertTrue(!s.labels.containsValue(a.id()) && !s.labels.containsValue(b.id()), "a user id as a label: " + s);
            }
        }

        // the console's chart of messages/s counts them too (each node writes its counts every 10 s)
        long sentAt = System.currentTimeMillis() / 1000 / 10 * 10;
        Wait.until("a chat_messages_per_second point from the bucket of our sends", Duration.ofSeconds(30),
                () -> consoleRate("chat_messages_per_second", sentAt - 10) > 0);
    }

    @Test
    void latenciesAreHistogramsAndWildFlysJvmAndPoolMetersAreThere() throws Exception {
        Scrape s = Scrape.now();
        for (String histogram : List.of("roost_store_call_seconds", "roost_chat_ack_seconds")) {
            assertTrue(s.text.contains("# TYPE " + histogram + " histogram"), histogram + " is a histogram");
        }
        assertTrue(s.sum("roost_store_call_seconds_bucket", l -> "+Inf".equals(l.get("le"))) > 0, "store calls timed");
        for (String wildfly : List.of("jvm_memory_used_bytes", "jvm_threads_live_threads", "datasources_pool_in_use_count")) {
            assertTrue(s.samples.stream().anyMatch(x -> x.name.equals(wildfly)), wildfly + " is exported");
        }
        assertTrue(s.samples.stream().anyMatch(x -> x.name.equals("datasources_pool_in_use_count") && "RoostDS".equals(x.labels.get("name"))),
                "the pool's use of Roost's datasource");
        assertTrue(s.samples.stream().anyMatch(x -> x.name.equals("roost_gateway_connections")), "connections are a gauge");
        assertTrue(s.samples.stream().anyMatch(x -> x.name.equals("roost_chat_offline_backlog")), "the offline-push backlog is a gauge");
        // each consumer group's lag, measured every 10 s on the node (never on the scrape)
        Wait.until("a consumer group's lag measured", Duration.ofSeconds(30), () -> Scrape.now().samples.stream()
                .anyMatch(x -> x.name.equals("roost_messaging_lag") && "roost-login-log".equals(x.labels.get("group")) && x.value >= 0));
    }

    private double consoleRate(String metric, long fromBucket) throws Exception {
        JsonObject m = Http.json(http().get("api/v1/admin/metrics?range=1h", Http.ADMIN));
        return m.getJsonArray("series").stream().map(JsonValue::asJsonObject).filter(x -> x.getString("metric").equals(metric))
                .flatMap(x -> x.getJsonArray("points").stream()).map(JsonValue::asJsonArray)
                .filter(p -> p.getJsonNumber(0).longValue() >= fromBucket).mapToDouble(p -> p.getJsonNumber(1).doubleValue()).sum();
    }

    private static void assertGrew(Scrape before, Scrape after, String name, Predicate<Map<String, String>> labels, double atLeast) {
        double grew = after.sum(name, labels) - before.sum(name, labels);
        assertTrue(grew >= atLeast, name + " grew by " + grew + ", not at least " + atLeast);
    }

    record Sample(String name, Map<String, String> labels, double value) {
    }

    /** One scrape of the endpoint, parsed: the text exposition format's samples. */
    record Scrape(String text, List<Sample> samples) {
        private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)\\})? (\\S+)");
        private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

        static Scrape now() throws Exception {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(METRICS).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
            List<Sample> samples = new ArrayList<>();
            for (String line : r.body().split("\n")) {
                Matcher m = SAMPLE.matcher(line);
                if (line.startsWith("#") || !m.find()) {
                    continue;
                }
                Map<String, String> labels = new LinkedHashMap<>();
                if (m.group(3) != null) {
                    Matcher l = LABEL.matcher(m.group(3));
                    while (l.find()) {
                        labels.put(l.group(1), l.group(2));
                    }
                }
                samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(4))));
            }
            return new Scrape(r.body(), samples);
        }

        double sum(String name) {
            return sum(name, l -> true);
        }

        double sum(String name, Predicate<Map<String, String>> labels) {
            return samples.stream().filter(s -> s.name.equals(name) && labels.test(s.labels)).mapToDouble(Sample::value).sum();
        }
    }
}
