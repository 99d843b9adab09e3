package io.roost.it.room;

import static io.roost.it.Http.ADMIN;
import static io.roost.it.Http.json;
import static io.roost.it.Problems.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.roost.client.device.RoostDevice;
import io.roost.it.Devices;
import io.roost.it.Devices.Recorder;
import io.roost.it.Wait;
import io.roost.it.DeployedRoost;
import io.roost.it.Social;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import io.roost.it.TopicEvents;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.time.OffsetDateTime;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The live-room REST API, its roomOp frames and its roost-room-events, as users, back ends and devices see them. */
class LiveRoomApiIT extends DeployedRoost {

    /** The roost-room-events, by room. */
    @RegisterExtension
    static final TopicEvents events = new TopicEvents("roost-room-events", "roomId");

    User user() throws Exception {
        return TestUsers.registerWithoutPassword(baseUrl, "lr-", "web", "w");
    }

    static String room() {
        return "api-room-" + UUID.randomUUID().toString().substring(0, 8);
    }

    static void assertStats(HttpResponse<String> r, int online, int fans) {
        assertEquals(200, r.statusCode(), r.body());
        assertEquals(online, json(r).getInt("online"), r.body());
        assertEquals(fans, json(r).getInt("onlineFans"), r.body());
    }

    @Test
    void anAnchorsLiveSessionAsUsersSeeIt() throws Exception {
        User anchor = user();
        User fan = user();
        User stranger = user();
        Social.befriend(baseUrl, fan, anchor); // in approval mode a fan is a friend
        String room = room();
        String base = "api/v1/rooms/" + room;

        var opened = http().post(base + "/sessions", anchor.auth(), "{\"title\":\"hello\"}");
        assertEquals(201, opened.statusCode(), opened.body());
        assertEquals(anchor.id(), json(opened).getString("anchorId"));
        assertTrue(json(opened).getBoolean("open"));
        String sessionId = json(opened).getString("id");
        assertEquals(200, http().post(base + "/sessions", anchor.auth(), "{}").statusCode(), "opening again is harmless");
        assertProblem(http().post(base + "/sessions", stranger.auth(), "{}"), 409, "room-busy");
        assertProblem(http().post(base + "/sessions", stranger.auth(), "{\"anchorId\":\"" + anchor.id() + "\"}"), 403, "forbidden");

        var entered = http().post(base + "/viewers/me", fan.auth(), "");
        assertEquals(200, entered.statusCode(), entered.body());
        assertTrue(json(entered).getBoolean("fan"));
        assertFalse(json(http().post(base + "/viewers/" + stranger.id(), stranger.auth(), "")).getBoolean("fan"));
        assertProblem(http().post(base + "/viewers/" + stranger.id(), fan.auth(), ""), 403, "forbidden");
        assertProblem(http().post(base + "/viewers/me", anchor.auth(), ""), 400, "anchor-not-viewer");
        assertStats(http().get(base + "/stats", stranger.auth()), 2, 1);
        assertStats(http().put(base + "/viewers/me/heartbeat", fan.auth(), ""), 2, 1);

        // lists and look-ups of other people are the anchor's (or a back end's)
        assertProblem(http().get(base + "/viewers", stranger.auth()), 403, "forbidden");
        var fans = json(http().get(base + "/viewers?fans=true", anchor.auth()));
        assertEquals(List.of(fan.id()), fans.getJsonArray("items").getValuesAs(JsonObject.class).stream()
                .map(v -> v.getString("uid")).toList());
        var firstPage = json(http().get(base + "/viewers?limit=1", anchor.auth()));
        assertEquals(1, firstPage.getJsonArray("items").size());
        var secondPage = json(http().get(base + "/viewers?limit=1&after=" + firstPage.getString("next"), anchor.auth()));
        assertEquals(1, secondPage.getJsonArray("items").size());
        assertTrue(secondPage.isNull("next"));
        assertTrue(json(http().get(base + "/viewers/" + fan.id(), anchor.auth())).getBoolean("online"));
        assertTrue(json(http().get(base + "/viewers/me", stranger.auth())).getBoolean("online"));
        assertProblem(http().get(base + "/viewers/" + fan.id(), stranger.auth()), 403, "forbidden");

        String from = OffsetDateTime.now().minusMinutes(1).toString();
        String to = OffsetDateTime.now().plusMinutes(1).toString();
        var window = http().get(base + "/fans/entered?from=" + from + "&to=" + to, anchor.auth());
        assertEquals(1, json(window).getInt("count"), window.body());
        assertProblem(http().get(base + "/fans/entered?from=yesterday&to=" + to, anchor.auth()), 400, "invalid-time");
        assertProblem(http().get(base + "/fans/entered?from=" + to + "&to=" + from, anchor.auth()), 400, "invalid-time-range");

        assertProblem(http().put(base + "/sessions/current/heartbeat", stranger.auth(), ""), 403, "forbidden");
        assertStats(http().put(base + "/sessions/current/heartbeat", anchor.auth(), ""), 2, 1);
        assertEquals(204, http().delete(base + "/viewers/me", stranger.auth()).statusCode());
        assertEquals(204, http().delete(base + "/viewers/me", stranger.auth()).statusCode(), "leaving twice is fine");
        assertStats(http().get(base + "/stats", fan.auth()), 1, 1);

        assertProblem(http().delete(base + "/sessions/current", stranger.auth()), 403, "forbidden");
        var closed = http().delete(base + "/sessions/current", anchor.auth());
        assertEquals(200, closed.statusCode(), closed.body());
        assertEquals(1, json(closed).getInt("online"));
        assertFalse(json(closed).getBoolean("open"));
        assertProblem(http().get(base + "/stats", fan.auth()), 404, "no-open-session");
        assertProblem(http().post(base + "/viewers/me", fan.auth(), ""), 404, "no-open-session");

        var sessions = json(http().get(base + "/sessions", fan.auth()));
        assertEquals(sessionId, sessions.getJsonArray("items").getJsonObject(0).getString("id"));
        var history = json(http().get(base + "/sessions/" + sessionId + "/viewers/me", fan.auth()));
        assertEquals(1, history.getInt("entries"), history.toString());
        var loyal = http().get(base + "/fans/loyal?sessions=3&mode=all", anchor.auth());
        assertEquals(200, loyal.statusCode(), loyal.body());
        assertEquals(List.of(sessionId), json(loyal).getJsonArray("sessionIds").getValuesAs(jakarta.json.JsonString.class)
                .stream().map(jakarta.json.JsonString::getString).toList());
        assertEquals(fan.id(), json(loyal).getJsonArray("items").getJsonObject(0).getString("uid"));
        assertProblem(http().get(base + "/fans/loyal", stranger.auth()), 403, "forbidden");
        assertProblem(http().get(base + "/fans/loyal?mode=some", anchor.auth()), 400, "invalid-mode");
        assertProblem(http().get(base + "/fans/loyal?sessions=0", anchor.auth()), 400, "invalid-sessions");
    }

    @Test
    void badInputIsAProblemAndChangesNothing() throws Exception {
        User anchor = user();
        String base = "api/v1/rooms/" + room();
        assertProblem(http().get("api/v1/rooms/bad!room/stats", anchor.auth()), 400, "invalid-room-id");
        assertProblem(http().get("api/v1/rooms/" + "r".repeat(65) + "/stats", anchor.auth()), 400, "invalid-room-id");
        assertEquals(401, http().get(base + "/stats", null).statusCode());
        assertProblem(http().post(base + "/sessions", ADMIN, "{}"), 400, "anchor-required");
        assertProblem(http().post(base + "/sessions", ADMIN, "{\"anchorId\":\"x1\"}"), 400, "invalid-id");
        assertProblem(http().post(base + "/sessions", ADMIN, "{\"anchorId\":\"12345\"}"), 400, "unknown-anchor");
        assertProblem(http().post(base + "/sessions", anchor.auth(), "{\"title\":"), 400, "malformed-json");
        assertProblem(http().get(base + "/sessions/current", anchor.auth()), 404, "no-open-session");
        assertEquals(201, http().post(base + "/sessions", ADMIN, "{\"anchorId\":\"" + anchor.id() + "\"}").statusCode());
        String many = IntStream.range(0, 1001).mapToObj(i -> "\"" + (900_000 + i) + "\"").collect(Collectors.joining(","));
        assertEquals(400, http().post(base + "/viewers:enter", ADMIN, "{\"uids\":[" + many + "]}").statusCode());
        assertEquals(400, http().post(base + "/viewers:enter", ADMIN, "{\"uids\":[]}").statusCode());
        assertProblem(http().post(base + "/viewers:enter", ADMIN, "{\"uids\":[\"1\",\"abc\"]}"), 400, "invalid-id");
        assertEquals(403, http().post(base + "/viewers:enter", anchor.auth(), "{\"uids\":[\"1\"]}").statusCode());
        assertProblem(http().get(base + "/viewers?limit=0", ADMIN), 400, "invalid-limit");
        assertProblem(http().get(base + "/sessions/nope", ADMIN), 400, "invalid-id");
        assertStats(http().get(base + "/stats", ADMIN), 0, 0);
        assertEquals(200, http().delete(base + "/sessions/current", ADMIN).statusCode());
    }

    @Test
    void backEndsRelayBatchesAndDashboardsGetRoomEvents() throws Exception {
        User anchor = user();
        String room = room();
        String base = "api/v1/rooms/" + room;
        assertEquals(201, http().post(base + "/sessions", ADMIN, "{\"anchorId\":\"" + anchor.id() + "\"}").statusCode());
        String uids = IntStream.range(0, 50).mapToObj(i -> "\"" + (880_000_000L + i) + "\"").collect(Collectors.joining(","));
        var entered = http().post(base + "/viewers:enter", ADMIN, "{\"uids\":[" + uids + "]}");
        assertEquals(50, json(entered).getJsonArray("viewers").size(), entered.body());
        assertStats(http().post(base + "/viewers:heartbeat", ADMIN, "{\"uids\":[" + uids + "]}"), 50, 0);
        String ten = IntStream.range(0, 10).mapToObj(i -> "\"" + (880_000_000L + i) + "\"").collect(Collectors.joining(","));
        assertEquals(10, json(http().post(base + "/viewers:leave", ADMIN, "{\"uids\":[" + ten + "]}")).getInt("count"));
        assertEquals(0, json(http().post(base + "/viewers:leave", ADMIN, "{\"uids\":[" + ten + "]}")).getInt("count"));
        assertStats(http().get(base + "/stats", ADMIN), 40, 0);

        BlockingQueue<JsonObject> seen = events.events(room);
        JsonObject openedEvent = seen.poll(60, TimeUnit.SECONDS);
        assertNotNull(openedEvent, "no opened event");
        assertEquals("opened", openedEvent.getString("type"));
        assertEquals(anchor.id(), openedEvent.getString("anchorId"));
        JsonObject counts = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline && (counts == null || counts.getInt("online") != 40)) {
            counts = seen.poll(5, TimeUnit.SECONDS); // published every second (ROOST_ROOM_COUNTS_INTERVAL=1s)
        }
        assertNotNull(counts, "no counts event");
        assertEquals("counts", counts.getString("type"));
        assertEquals(40, counts.getInt("online"));

        assertEquals(200, http().delete(base + "/sessions/current", ADMIN).statusCode());
        JsonObject closed = null;
        while (System.nanoTime() < deadline && (closed == null || !closed.getString("type").equals("closed"))) {
            closed = seen.poll(5, TimeUnit.SECONDS);
        }
        assertNotNull(closed, "no closed event");
        assertEquals(40, closed.getInt("online"));
    }

    @Test
    void devicesUseRoomOpFrames() throws Exception {
        User anchor = user();
        User fan = user();
        Social.befriend(baseUrl, fan, anchor); // in approval mode a fan is a friend
        String room = room();
        RoostDevice anchorWeb = Devices.online(baseUrl, anchor, "web", "w", new Recorder());
        RoostDevice fanWeb = Devices.online(baseUrl, fan, "web", "w", new Recorder());

        JsonNode opened = op(anchorWeb, "open", room);
        assertEquals("ok", opened.path("result").asText(), opened.toString());
        JsonNode entered = op(fanWeb, "enter", room);
        assertEquals("ok", entered.path("result").asText(), entered.toString());
        assertTrue(entered.path("fan").asBoolean());
        assertEquals(1, entered.path("online").asInt());
        assertEquals(1, op(fanWeb, "heartbeat", room).path("onlineFans").asInt());
        assertEquals(1, op(anchorWeb, "anchorHeartbeat", room).path("online").asInt());
        assertEquals("unknown-op", op(fanWeb, "teleport", room).path("code").asText());
        assertEquals("invalid-room-id", op(fanWeb, "stats", "no room").path("code").asText());
        assertEquals("forbidden", op(fanWeb, "close", room).path("code").asText());

        // the fan's connection closes: it leaves the room by the drop, not after the viewer timeout (a heartbeat
        // just before, so that on a slow box the suite's 4 s timeout cannot take the viewer offline first). The
        // viewer's row below tells the two apart, so the count may take longer than that timeout: a deadline
        // under it failed once on a freshly deployed server on a slow box
        assertEquals("ok", op(fanWeb, "heartbeat", room).path("result").asText());
        fanWeb.close();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        JsonNode stats;
        do {
            stats = op(anchorWeb, "stats", room);
        } while (stats.path("online").asInt() != 0 && System.nanoTime() < deadline);
        assertEquals(0, stats.path("online").asInt(), stats.toString());
        // the count drops first; the viewer's row records how it left in the leave's own write
        String viewerPath = "api/v1/rooms/" + room + "/viewers/" + fan.id();
        Wait.until("the viewer's row says it left by a drop", Duration.ofSeconds(5),
                () -> "drop".equals(json(http().get(viewerPath, anchor.auth())).getString("leftBy", null)));

        assertEquals("ok", op(anchorWeb, "close", room).path("result").asText());
        assertEquals("no-open-session", op(anchorWeb, "stats", room).path("code").asText());
        anchorWeb.close();
    }

    static JsonNode op(RoostDevice d, String op, String room) throws Exception {
        return Devices.outcome(d.request("roomOp", op, RoostDevice.fields().put("roomId", room)));
    }
}
