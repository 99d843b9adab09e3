package io.roost.it.presence;

import static io.roost.it.Http.ADMIN;
import static io.roost.it.Http.json;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.BrokerAdmin;
import io.roost.it.Database;
import io.roost.it.DeployedRoost;
import io.roost.it.Http;
import io.roost.it.ServerTimers;
import io.roost.it.Wait;
import io.roost.presence.mqtt.MqttStatusEvent;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.message.Message;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.as.arquillian.container.ManagementClient;
import org.junit.jupiter.api.Test;

/**
 * MQTT status notifications through the real broker: a scrambled, duplicated stream for a few
 * hundred clients (flapping, takeovers, lost tcpcleans), plus a poison message, must end with
 * every client's online state equal to the oracle's. Randomized; seed printed.
 */
class MqttPresenceIT extends DeployedRoost {

    static final String TOPIC = "GID_ROOST_IT_MQTT";

    @ArquillianResource
    ManagementClient management;

    record Event(String clientId, String channelId, MqttStatusEvent.Type type, long time) {
        String json() {
            return "{\"clientId\":\"" + clientId + "\",\"time\":" + time + ",\"eventType\":\"" + type.wire()
                    + "\",\"channelId\":\"" + channelId + "\",\"clientIp\":\"10.0.0.1:1234\"}";
        }
    }

    @Test
    void scrambledDuplicatedStreamThroughTheBrokerMatchesTheOracle() throws Exception {
        long seed = Long.getLong("roost.seed", System.nanoTime());
        System.out.println("MqttPresenceIT seed=" + seed + " (replay with -Droost.seed=" + seed + ")");
        Random random = new Random(seed);
        String group = "GID_IT" + Long.toHexString(seed).toUpperCase();
        List<Event> events = new ArrayList<>();
        for (int c = 0; c < 300; c++) {
            String clientId = group + "@@@dev-" + c;
            long t = 1_700_000_000L + random.nextInt(1000);
            int connections = 1 + random.nextInt(4);
            for (int k = 0; k < connections; k++) {
                String channel = Long.toHexString(random.nextLong());
                // now and then a takeover in the same second: the larger channelId is the newer connect
                t += random.nextInt(8) == 0 ? 0 : 1 + random.nextInt(5);
                events.add(new Event(clientId, channel, MqttStatusEvent.Type.CONNECT, t));
                boolean last = k == connections - 1;
                int fate = random.nextInt(10);
                if (!last || fate < 6) {
                    // Closed: usually a disconnect then tcpclean, sometimes only tcpclean; on takeover the
                    // old connection's tcpclean is stamped after the next connect; sometimes it is lost.
                    if (random.nextBoolean()) {
                        events.add(new Event(clientId, channel, MqttStatusEvent.Type.DISCONNECT, t + 1));
                    }
                    if (last || random.nextInt(5) > 0) {
                        events.add(new Event(clientId, channel, MqttStatusEvent.Type.TCPCLEAN, last ? t + 2 : t + 7));
                    }
                }
            }
        }
        Map<String, Boolean> expected = oracle(events);

        List<Event> deliveries = new ArrayList<>();
        for (Event e : events) {
            for (int k = 1 + random.nextInt(2); k > 0; k--) {
                deliveries.add(e);
            }
        }
        Collections.shuffle(deliveries, random);

        Http http = http();
        long appliedBefore = ingestStat(http, "applied");
        long deadBefore = ingestStat(http, "deadLettersStored");
        DefaultMQProducer producer = BrokerAdmin.producer(System.getProperty("roost.test.namesrv"), "mqtt");
        try {
            int poisonAt = deliveries.size() / 2;
            for (int i = 0; i < deliveries.size(); i++) {
                if (i == poisonAt) {
                    producer.send(new Message(TOPIC, "connect", "{this is not json".getBytes(StandardCharsets.UTF_8)));
                    producer.send(new Message(TOPIC, "connect",
                            "{\"clientId\":\"x\",\"time\":1,\"channelId\":\"c\",\"eventType\":\"reboot\"}".getBytes(StandardCharsets.UTF_8)));
                }
                Event e = deliveries.get(i);
                producer.send(new Message(TOPIC, e.type().wire(), e.json().getBytes(StandardCharsets.UTF_8)));
            }
        } finally {
            producer.shutdown();
        }
        System.out.printf("MqttPresenceIT: %d clients, %d events, %d deliveries sent%n", expected.size(), events.size(),
                deliveries.size());

        // Everything handled first: every delivery applied (the server counts what it applied; a batch
        // redelivered after a failure counts its applied part again) and both poison messages stored.
        // The clients' states matching the oracle do not show it: most facts (a superseded connection's
        // connect and closes) move no client, so a consumer still behind, or a batch the database refused
        // that RocketMQ redelivers seconds later, left the history short while every state was already
        // right (728 connects of 730 once).
        Wait.until("all " + deliveries.size() + " deliveries applied and both poison messages stored (seed " + seed + ")",
                Duration.ofSeconds(120), () -> ingestStat(http, "applied") - appliedBefore >= deliveries.size()
                        && ingestStat(http, "deadLettersStored") >= deadBefore + 2);
        Map<String, Boolean> actual = new HashMap<>();
        HttpResponse<String> r = http.get("api/v1/presence/mqtt/clients?limit=10000&groupId=" + group, ADMIN);
        assertEquals(200, r.statusCode(), r.body());
        json(r).getJsonArray("clients").forEach(c -> actual.put(c.asJsonObject().getString("clientId"),
                c.asJsonObject().getBoolean("online")));
        List<String> wrong = expected.entrySet().stream().filter(x -> !x.getValue().equals(actual.get(x.getKey())))
                .map(Map.Entry::getKey).toList();
        assertEquals(List.of(), wrong, "clients whose state differs from the oracle (seed " + seed + ")");
        assertEquals(expected.keySet(), actual.keySet(), "the group's clients (seed " + seed + ")");

        // Counted per group, and the poison messages were kept aside, not retried for ever.
        long online = expected.values().stream().filter(b -> b).count();
        JsonObject stats = json(http.get("api/v1/presence/mqtt/groups/" + group + "/stats?from=0&to=9999999999", ADMIN));
        assertEquals(online, stats.getJsonNumber("online").longValue());
        assertEquals(events.stream().filter(e -> e.type() == MqttStatusEvent.Type.CONNECT).count(),
                stats.getJsonNumber("connects").longValue(), "each connect recorded once in the history (seed " + seed + ")");
        assertEquals(deadBefore + 2, ingestStat(http, "deadLettersStored"), "both poison messages dead-lettered, once each");

        // One client's view: connections with superseded flags, and its trajectory.
        String someone = expected.keySet().iterator().next();
        JsonObject client = json(http.get("api/v1/presence/mqtt/clients/" + someone, ADMIN));
        assertEquals(expected.get(someone), client.getBoolean("online"));
        long supersededCount = client.getJsonArray("connections").stream()
                .filter(c -> c.asJsonObject().getBoolean("superseded")).count();
        assertEquals(client.getJsonArray("connections").size() - 1, supersededCount, client.toString());
        long ownEvents = events.stream().filter(e -> e.clientId().equals(someone)).count();
        assertEquals(ownEvents, json(http.get("api/v1/presence/mqtt/clients/" + someone + "/history", ADMIN))
                .getJsonArray("events").size());
    }

    /**
     * The database refuses the first batch that touches one client (a trigger that fails while a
     * sequence is below 1; sequences are not rolled back). The consumer must not acknowledge it:
     * RocketMQ redelivers, and the state ends right with every event recorded exactly once.
     */
    @Test
    void aBatchThatFailsIsRedeliveredAndAppliedExactlyOnce() throws Exception {
        String clientId = "GID_FAILONCE@@@dev-" + System.nanoTime();
        try (java.sql.Connection db = Database.connect(); java.sql.Statement st = db.createStatement()) {
            st.execute("CREATE SEQUENCE IF NOT EXISTS it_fail_once");
            st.execute("SELECT setval('it_fail_once', 1, false)");
            st.execute("""
                    CREATE OR REPLACE FUNCTION it_fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                      IF NEW.client_id LIKE 'GID_FAILONCE@@@%' AND nextval('it_fail_once') <= 1 THEN
                        RAISE EXCEPTION 'injected failure for %', NEW.client_id;
                      END IF;
                      RETURN NEW;
                    END $$""");
            st.execute("DROP TRIGGER IF EXISTS it_fail_once_trg ON mqtt_connection");
            st.execute("CREATE TRIGGER it_fail_once_trg BEFORE INSERT ON mqtt_connection FOR EACH ROW EXECUTE FUNCTION it_fail_once()");
            try {
                DefaultMQProducer producer = BrokerAdmin.producer(System.getProperty("roost.test.namesrv"), "mqtt-fail");
                try {
                    Event connect = new Event(clientId, "ch-1", MqttStatusEvent.Type.CONNECT, 500);
                    producer.send(new Message(TOPIC, "connect", connect.json().getBytes(StandardCharsets.UTF_8)));
                } finally {
                    producer.shutdown();
                }
                Http http = http();
                long deadline = System.currentTimeMillis() + 90_000;
                HttpResponse<String> r = http.get("api/v1/presence/mqtt/clients/" + clientId, ADMIN);
                while (r.statusCode() != 200 && System.currentTimeMillis() < deadline) {
                    Thread.sleep(500);
                    r = http.get("api/v1/presence/mqtt/clients/" + clientId, ADMIN);
                }
                assertEquals(200, r.statusCode(), "applied after redelivery: " + r.body());
                assertTrue(json(r).getBoolean("online"));
                try (var rs = st.executeQuery("SELECT last_value FROM it_fail_once")) {
                    rs.next();
                    assertTrue(rs.getLong(1) >= 2, "the first attempt really failed");
                }
                assertEquals(1, json(http.get("api/v1/presence/mqtt/clients/" + clientId + "/history", ADMIN))
                        .getJsonArray("events").size(), "recorded once");
            } finally {
                st.execute("DROP TRIGGER IF EXISTS it_fail_once_trg ON mqtt_connection");
            }
        }
    }

    @Test
    void theHttpBridgeAppliesTheSameRulesAndRefusesBadInput() throws Exception {
        Http http = http();
        String clientId = "GID_HTTP@@@dev-" + System.nanoTime();
        String connect2 = "{\"clientId\":\"" + clientId + "\",\"time\":200,\"eventType\":\"connect\",\"channelId\":\"c2\"}";
        String clean1 = "{\"clientId\":\"" + clientId + "\",\"time\":201,\"eventType\":\"tcpclean\",\"channelId\":\"c1\"}";
        String connect1 = "{\"clientId\":\"" + clientId + "\",\"time\":100,\"eventType\":\"connect\",\"channelId\":\"c1\"}";
        // Takeover delivered backwards: the old channel's tcpclean first, then the new connect, then the old connect.
        assertEquals(200, http.post("api/v1/presence/mqtt/events", ADMIN, clean1).statusCode());
        assertEquals(200, http.post("api/v1/presence/mqtt/events", ADMIN, "[" + connect2 + "," + connect1 + "]").statusCode());
        HttpResponse<String> got = http.get("api/v1/presence/mqtt/clients/" + clientId, ADMIN);
        assertEquals(200, got.statusCode(), got.body());
        JsonObject client = json(got);
        assertTrue(client.getBoolean("online"), client.toString());
        assertEquals(200, client.getJsonNumber("onlineSince").longValue());

        HttpResponse<String> bad = http.post("api/v1/presence/mqtt/events", ADMIN,
                "{\"clientId\":\"" + clientId + "\",\"time\":300,\"eventType\":\"tcpclean\"}");
        assertEquals(400, bad.statusCode());
        assertEquals("urn:roost:problem:invalid-status-event", json(bad).getString("type"));
        assertEquals(400, http.post("api/v1/presence/mqtt/events", ADMIN, "{oops").statusCode());
        assertTrue(json(http.get("api/v1/presence/mqtt/clients/" + clientId, ADMIN)).getBoolean("online"),
                "a refused request changed nothing");
        assertEquals(404, http.get("api/v1/presence/mqtt/clients/nobody-" + System.nanoTime(), ADMIN).statusCode());
    }

    /**
     * The housekeeping timer forgets a closed, superseded connection after its retention and drops
     * history past its age; a late duplicate of the forgotten connection's event is still recorded
     * once (its time is within the purge horizon, so the history is probed), while a fact that
     * connection never had is recorded, and the client's state does not move.
     */
    @Test
    void purgedConnectionsKeepRejectingTheirDuplicates() throws Exception {
        Http http = http();
        String clientId = "GID_PURGE@@@dev-" + System.nanoTime();
        String events = "[" + String.join(",",
                new Event(clientId, "old", MqttStatusEvent.Type.CONNECT, 1_000).json(),
                new Event(clientId, "old", MqttStatusEvent.Type.TCPCLEAN, 1_005).json(),
                new Event(clientId, "new", MqttStatusEvent.Type.CONNECT, 2_000).json()) + "]";
        assertEquals(200, http.post("api/v1/presence/mqtt/events", ADMIN, events).statusCode());
        try (java.sql.Connection db = Database.connect(); java.sql.Statement st = db.createStatement()) {
            // An hour past the connection retention; the old tcpclean's history row past the history age.
            assertEquals(1, st.executeUpdate("UPDATE mqtt_connection SET closed_at = now() - interval '2 hours' WHERE client_id = '"
                    + clientId + "' AND channel_id = 'old'"));
            assertEquals(1, st.executeUpdate("UPDATE mqtt_event SET received_at = now() - interval '400 days' WHERE client_id = '"
                    + clientId + "' AND event_type = 'tcpclean'"));
            // Its work now rather than at its next tick (every 30 s); a tick that holds the task at this
            // moment (one node at a time) may have missed the rows, and the next one takes them.
            ServerTimers.trigger(management, "MqttHousekeeping");
            Wait.until("the housekeeping purges the old connection and the old history", Duration.ofSeconds(35), () ->
                    count(st, "SELECT count(*) FROM mqtt_connection WHERE client_id = '" + clientId + "' AND channel_id = 'old'") == 0
                    && count(st, "SELECT count(*) FROM mqtt_event WHERE client_id = '" + clientId + "' AND event_type = 'tcpclean'") == 0);
            assertEquals(1, count(st, "SELECT count(*) FROM mqtt_connection WHERE client_id = '" + clientId + "'"),
                    "the newest connect is kept");
            assertTrue(count(st, "SELECT event_time FROM mqtt_purge_horizon") >= 1_005, "the horizon covers the purged times");
        }
        assertEquals(200, http.post("api/v1/presence/mqtt/events", ADMIN, "[" + String.join(",",
                new Event(clientId, "old", MqttStatusEvent.Type.CONNECT, 1_000).json(),
                new Event(clientId, "old", MqttStatusEvent.Type.DISCONNECT, 1_004).json()) + "]").statusCode());
        List<String> history = json(http.get("api/v1/presence/mqtt/clients/" + clientId + "/history?from=0&to=3000", ADMIN))
                .getJsonArray("events").stream()
                .map(v -> v.asJsonObject().getString("channelId") + ":" + v.asJsonObject().getString("eventType")).toList();
        assertEquals(List.of("old:connect", "old:disconnect", "new:connect"), history);
        JsonObject client = json(http.get("api/v1/presence/mqtt/clients/" + clientId, ADMIN));
        assertTrue(client.getBoolean("online"), client.toString());
        assertEquals(2_000, client.getJsonNumber("onlineSince").longValue());
    }

    /** A number of the MQTT ingestion's stats: {@code applied} (by this node), {@code deadLettersStored}. */
    static long ingestStat(Http http, String name) throws Exception {
        return json(http.get("api/v1/presence/mqtt/stats", ADMIN)).getJsonNumber(name).longValue();
    }

    static long count(java.sql.Statement st, String sql) throws java.sql.SQLException {
        try (var rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * The rules as docs/architecture.md states them, written here without the production code's
     * help: a client is online iff its newest connect (by time, then the larger channelId) belongs
     * to an open connection, one with no disconnect and no tcpclean, whatever order they came in.
     */
    static Map<String, Boolean> oracle(List<Event> events) {
        Map<String, Event> newestConnect = new LinkedHashMap<>();
        Set<String> closed = new HashSet<>(); // "clientId channelId"
        for (Event e : events) {
            if (e.type() == MqttStatusEvent.Type.CONNECT) {
                newestConnect.merge(e.clientId(), e, (a, b) -> b.time() > a.time()
                        || (b.time() == a.time() && b.channelId().compareTo(a.channelId()) > 0) ? b : a);
            } else {
                closed.add(e.clientId() + " " + e.channelId());
            }
        }
        Map<String, Boolean> online = new LinkedHashMap<>();
        for (Event e : events) {
            Event newest = newestConnect.get(e.clientId());
            online.put(e.clientId(), newest != null && !closed.contains(newest.clientId() + " " + newest.channelId()));
        }
        return online;
    }
}
