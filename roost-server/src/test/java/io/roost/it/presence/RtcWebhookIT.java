package io.roost.it.presence;

import static io.roost.it.Http.ADMIN;
import static io.roost.it.Http.basic;
import static io.roost.it.Http.json;
import static io.roost.it.Http.ok;
import static io.roost.it.Problems.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.AgoraStub;
import io.roost.it.Database;
import io.roost.it.DeployedRoost;
import io.roost.it.Http;
import io.roost.it.Ncs;
import io.roost.it.TestUsers;
import io.roost.it.Wait;
import io.roost.presence.rtc.AgoraSignature;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The NCS webhook end to end: real signed HTTP in, PostgreSQL state out through the query API. */
class RtcWebhookIT extends DeployedRoost {

    @RegisterExtension
    static final AgoraStub agora = new AgoraStub();

    /**
     * A fresh channel. Its notices' ids start with its name: the server remembers the noticeIds it
     * applied and skips them with a 200, so a fixed id that a long-lived server saw before would turn
     * a notice into nothing, and a check that it changed nothing would pass without a test.
     */
    static String channelName() {
        return "it-" + UUID.randomUUID().toString().substring(0, 12);
    }

    static long now() {
        return System.currentTimeMillis() / 1000;
    }

    JsonObject channel(String name) throws Exception {
        HttpResponse<String> r = http().get("api/v1/presence/channels/" + name, ADMIN);
        assertEquals(200, r.statusCode(), r.body());
        return json(r);
    }

    JsonObject members(String name, String query) throws Exception {
        HttpResponse<String> r = http().get("api/v1/presence/channels/" + name + "/members" + query, ADMIN);
        assertEquals(200, r.statusCode(), r.body());
        return json(r);
    }

    @Test
    void signatureChecks() throws Exception {
        Ncs ncs = ncs();
        String name = channelName();
        byte[] body = Ncs.member(name + "-sig-1", 103, name, 1, 1, now(), null).getBytes(StandardCharsets.UTF_8);
        String sha1 = AgoraSignature.hmacHex("HmacSHA1", Ncs.SECRET, body);
        String sha256 = AgoraSignature.hmacHex("HmacSHA256", Ncs.SECRET, body);

        // Refused: nothing at all, a wrong secret, a body changed after signing.
        assertInvalidSignature(ncs.send(body, null, null));
        assertInvalidSignature(ncs.send(body, AgoraSignature.hmacHex("HmacSHA1", "wrong", body),
                AgoraSignature.hmacHex("HmacSHA256", "wrong", body)));
        byte[] modified = Ncs.member(name + "-sig-1", 103, name, 1, 2, now(), null).getBytes(StandardCharsets.UTF_8);
        assertInvalidSignature(ncs.send(modified, sha1, sha256));
        assertEquals(404, http().get("api/v1/presence/channels/" + name, ADMIN).statusCode(), "nothing applied");

        // Accepted: SHA1 only, SHA256 only, both, and the previous secret during a rotation.
        assertEquals(200, ncs.send(body, sha1, null).statusCode());
        byte[] second = Ncs.member(name + "-sig-2", 103, name, 2, 1, now(), null).getBytes(StandardCharsets.UTF_8);
        assertEquals(200, ncs.send(second, null, AgoraSignature.hmacHex("HmacSHA256", Ncs.SECRET, second)).statusCode());
        byte[] third = Ncs.member(name + "-sig-3", 103, name, 3, 1, now(), null).getBytes(StandardCharsets.UTF_8);
        assertEquals(200, ncs.send(third, AgoraSignature.hmacHex("HmacSHA1", Ncs.SECRET, third),
                AgoraSignature.hmacHex("HmacSHA256", Ncs.SECRET, third)).statusCode());
        byte[] fourth = Ncs.member(name + "-sig-4", 103, name, 4, 1, now(), null).getBytes(StandardCharsets.UTF_8);
        assertEquals(200, ncs.send(fourth, AgoraSignature.hmacHex("HmacSHA1", "it-secret-old", fourth), null).statusCode());
        assertEquals(4, channel(name).getJsonObject("online").getInt("broadcasters"));
    }

    private static void assertInvalidSignature(HttpResponse<String> r) {
        assertProblem(r, 401, "invalid-signature");
    }

    @Test
    void malformedOrIncompleteNoticesAre400AndChangeNothing() throws Exception {
        Ncs ncs = ncs();
        String name = channelName();
        HttpResponse<String> broken = ncs.send("{\"noticeId\":\"x\",\"eventType\":103,\"payload\":{\"channelName\":\"" + name);
        assertEquals(400, broken.statusCode(), broken.body());
        assertEquals("urn:roost:problem:malformed-json", json(broken).getString("type"));
        HttpResponse<String> noSeq = ncs.send("{\"noticeId\":\"x\",\"eventType\":103,\"payload\":{\"channelName\":\""
                + name + "\",\"uid\":5,\"ts\":1}}");
        assertEquals(400, noSeq.statusCode());
        assertEquals("urn:roost:problem:invalid-notice", json(noSeq).getString("type"));
        assertTrue(json(noSeq).getString("detail").contains("clientSeq"));
        assertEquals(404, http().get("api/v1/presence/channels/" + name, ADMIN).statusCode());
    }

    @Test
    void otherMethodsAndOversizedBodiesAreProblemsAndChangeNothing() throws Exception {
        HttpResponse<String> get = http().get("api/v1/webhooks/agora", null);
        assertEquals(405, get.statusCode(), get.body());
        assertEquals("urn:roost:problem:method-not-allowed", json(get).getString("type"));
        assertEquals("POST", get.headers().firstValue("Allow").orElse(""));

        String name = channelName();
        // a signed, valid notice padded past ROOST_MAX_REQUEST_BYTES (1 MiB by default)
        String padded = Ncs.member(name + "-big-1", 103, name, 1, 1, now(), null)
                .replace("\"sid\":\"s\"", "\"sid\":\"" + "s".repeat(1_100_000) + "\"");
        HttpResponse<String> big = ncs().send(padded);
        assertEquals(413, big.statusCode(), big.body().length() > 300 ? big.body().substring(0, 300) : big.body());
        assertEquals("urn:roost:problem:payload-too-large", json(big).getString("type"));
        assertEquals(404, http().get("api/v1/presence/channels/" + name, ADMIN).statusCode(), "nothing applied");
    }

    @Test
    void unknownEventTypesAreAcknowledgedAndCounted() throws Exception {
        long before = json(http().get("api/v1/presence/rtc/stats", ADMIN)).getJsonNumber("unknownTypes").longValue();
        HttpResponse<String> r = ncs().send("{\"noticeId\":\"u-" + UUID.randomUUID() + "\",\"eventType\":10,\"payload\":{\"a\":\"1\"}}");
        assertEquals(200, r.statusCode(), r.body());
        long after = json(http().get("api/v1/presence/rtc/stats", ADMIN)).getJsonNumber("unknownTypes").longValue();
        assertEquals(before + 1, after);
    }

    @Test
    void joinsLeavesRolesCountsAndQueries() throws Exception {
        Ncs ncs = ncs();
        String name = channelName();
        long ts = now();
        assertEquals(200, ncs.send(Ncs.member(name + "-q1", 103, name, 10, 1, ts, null)).statusCode());
        assertEquals(200, ncs.send(Ncs.member(name + "-q2", 105, name, 11, 1, ts, null)).statusCode());
        assertEquals(200, ncs.send(Ncs.member(name + "-q3", 105, name, 12, 1, ts, null)).statusCode());
        assertEquals(200, ncs.send(Ncs.member(name + "-q4", 107, name, 13, 1, ts, null)).statusCode());
        // A leave whose join never arrived: a tombstone, and the late join is rejected.
        assertEquals(200, ncs.send(Ncs.member(name + "-q5", 106, name, 14, 9, ts, null)).statusCode());
        assertEquals(200, ncs.send(Ncs.member(name + "-q6", 105, name, 14, 8, ts, null)).statusCode());
        // Audience 12 becomes a broadcaster; a stale duplicate of its join changes nothing.
        assertEquals(200, ncs.send(Ncs.member(name + "-q7", 111, name, 12, 2, ts, null)).statusCode());
        assertEquals(200, ncs.send(Ncs.member(name + "-q3-again", 105, name, 12, 1, ts, null)).statusCode());

        JsonObject online = channel(name).getJsonObject("online");
        assertEquals(2, online.getInt("broadcasters"));
        assertEquals(1, online.getInt("audience"));
        assertEquals(1, online.getInt("communication"));

        JsonObject all = members(name, "?limit=10");
        assertEquals(5, all.getJsonArray("members").size());
        JsonObject broadcasters = members(name, "?role=broadcaster&online=true");
        assertEquals("[10,12]", broadcasters.getJsonArray("members").stream()
                .map(m -> m.asJsonObject().get("uid").toString()).toList().toString().replace(" ", ""));
        JsonObject offline = members(name, "?online=false");
        assertEquals(1, offline.getJsonArray("members").size());
        assertEquals(14, offline.getJsonArray("members").getJsonObject(0).getInt("uid"));

        // Keyset paging: two pages of 3 and 2, no overlap.
        JsonObject page1 = members(name, "?limit=3");
        String cursor = page1.getString("nextCursor");
        JsonObject page2 = members(name, "?limit=3&cursor=" + cursor);
        assertEquals(3, page1.getJsonArray("members").size());
        assertEquals(2, page2.getJsonArray("members").size());
        assertTrue(page2.isNull("nextCursor"));

        JsonObject where = json(http().get("api/v1/presence/users/12/channels", ADMIN));
        assertTrue(where.getJsonArray("channels").stream()
                .anyMatch(c -> c.asJsonObject().getString("channelName").equals(name)));

        // The channel listing finds it with the same counts.
        boolean listed = false;
        String after = name.substring(0, name.length() - 1);
        JsonObject list = json(http().get("api/v1/presence/channels?limit=5&cursor=" + after, ADMIN));
        for (var c : list.getJsonArray("channels")) {
            if (c.asJsonObject().getString("channelName").equals(name)) {
                listed = true;
                assertEquals(2, c.asJsonObject().getJsonObject("online").getInt("broadcasters"));
            }
        }
        assertTrue(listed, list.toString());
    }

    @Test
    void channelDestroyTakesOlderMembersOffline() throws Exception {
        Ncs ncs = ncs();
        String name = channelName();
        long ts = now();
        ok(ncs.send(Ncs.channel(name + "-d0", 101, name, ts - 10)));
        ok(ncs.send(Ncs.member(name + "-d1", 105, name, 1, 1, ts - 5, null)));
        ok(ncs.send(Ncs.member(name + "-d2", 105, name, 2, 1, ts + 5, null))); // joined after the destroy below
        assertEquals(200, ncs.send(Ncs.channel(name + "-d3", 102, name, ts)).statusCode());
        JsonObject channel = channel(name);
        assertEquals(1, channel.getJsonObject("online").getInt("audience"));
        // A late join from before the destroy does not bring the user back: it lands offline.
        ok(ncs.send(Ncs.member(name + "-d4", 105, name, 3, 1, ts - 2, null)));
        assertEquals(1, channel(name).getJsonObject("online").getInt("audience"));
        List<String> gone = members(name, "?online=false").getJsonArray("members").stream().map(JsonValue::asJsonObject)
                .map(m -> m.getInt("uid") + ":" + m.getInt("lastEventType")).toList();
        assertEquals(List.of("1:102", "3:102"), gone, "taken offline by the destroy, and the late join applied offline");
    }

    @Test
    void abnormalLeaveIsKickedThroughAgorasApiOnceRetriedAfterA500() throws Exception {
        Ncs ncs = ncs();
        String name = channelName();
        agora.failNext(name, 1);
        ok(ncs.send(Ncs.member(name + "-k1", 103, name, 77, 1, now(), null)));
        assertEquals(200, ncs.send(Ncs.member(name + "-k2", 104, name, 77, 2, now(), 999)).statusCode());
        // NCS sends the same notice again: still one kick.
        assertEquals(200, ncs.send(Ncs.member(name + "-k2", 104, name, 77, 2, now(), 999)).statusCode());

        Wait.until("kick DONE", Duration.ofSeconds(30), () -> {
            var kicks = json(http().get("api/v1/presence/channels/" + name + "/kicks", ADMIN)).getJsonArray("kicks");
            return kicks.size() == 1 && kicks.getJsonObject(0).getString("status").equals("DONE");
        });
        JsonObject kick = json(http().get("api/v1/presence/channels/" + name + "/kicks", ADMIN))
                .getJsonArray("kicks").getJsonObject(0);
        assertEquals(1953, kick.getInt("ruleId"));
        assertEquals(2, kick.getInt("attempts"), "one failure (HTTP 500), then success");
        List<String> mine = agora.kicksOf(name);
        assertEquals(2, mine.size(), "the stub saw the failed try and the retry, nothing more: " + mine);
        JsonObject request = json(mine.get(1));
        assertEquals("it-app", request.getString("appid"));
        assertEquals(name, request.getString("cname"));
        assertEquals(77, request.getInt("uid"));
        assertEquals("join_channel", request.getJsonArray("privileges").getString(0));
        assertTrue(request.getInt("time") > 0);
        assertTrue(agora.kickAuth.contains(basic("it-customer", "it-customer-secret")));
    }

    @Test
    void tombstonesAreRemovedAfterTheRetentionUnlessTheUserCameBack() throws Exception {
        Ncs ncs = ncs();
        String name = channelName();
        ok(ncs.send(Ncs.member(name + "-r1", 105, name, 1, 1, now(), null)));
        ok(ncs.send(Ncs.member(name + "-r2", 106, name, 1, 2, now(), null)));
        ok(ncs.send(Ncs.member(name + "-r3", 105, name, 2, 1, now(), null)));
        ok(ncs.send(Ncs.member(name + "-r4", 106, name, 2, 2, now(), null)));
        ok(ncs.send(Ncs.member(name + "-r5", 105, name, 2, 3, now(), null))); // came back: keeps its row
        ok(ncs.send(Ncs.member(name + "-r6", 105, name, 3, 1, now(), null)));
        ok(ncs.send(Ncs.member(name + "-r7", 106, name, 3, 2, now(), null))); // left just now: within the retention
        assertEquals(List.of("1:false", "2:true", "3:false"), memberStates(name));
        // Instead of waiting out ROOST_PRESENCE_QUIT_RETENTION (20 s here), uids 1 and 2 last changed a
        // day ago; the sweep runs every second and goes by that updated_at.
        try (Connection c = Database.connect()) {
            assertEquals(2, Database.execute(c, "UPDATE rtc_member SET updated_at = now() - interval '1 day'"
                    + " WHERE channel_name = ? AND uid IN (1, 2)", name));
        }
        Wait.until("tombstone of uid 1 removed", Duration.ofSeconds(10), () -> memberStates(name).size() == 2);
        assertEquals(List.of("2:true", "3:false"), memberStates(name),
                "uid 2 is online again, uid 3's tombstone is younger than the retention");
    }

    /** Every member row of the channel as "uid:online", by uid. */
    List<String> memberStates(String name) throws Exception {
        return members(name, "").getJsonArray("members").stream().map(JsonValue::asJsonObject)
                .map(m -> m.getInt("uid") + ":" + m.getBoolean("online")).toList();
    }

    @Test
    void queryApiValidatesAndNeedsAnAdminOrServiceCaller() throws Exception {
        Http http = http();
        HttpResponse<String> badRole = http.get("api/v1/presence/channels/x/members?role=king", ADMIN);
        assertEquals(400, badRole.statusCode());
        assertEquals("urn:roost:problem:invalid-parameter", json(badRole).getString("type"));
        assertEquals(400, http.get("api/v1/presence/channels/x/members?limit=10001", ADMIN).statusCode());
        assertEquals(400, http.get("api/v1/presence/channels?limit=0", ADMIN).statusCode());
        assertEquals(400, http.get("api/v1/presence/users/abc/channels", ADMIN).statusCode());
        assertEquals(404, http.get("api/v1/presence/channels/no-such-channel-" + UUID.randomUUID(), ADMIN).statusCode());
        assertEquals(401, http.get("api/v1/presence/channels", null).statusCode());
        TestUsers.User user = TestUsers.create(baseUrl, "rtc-user-");
        assertEquals(403, http.get("api/v1/presence/channels", basic(user.name(), TestUsers.PASSWORD)).statusCode());
    }
}
