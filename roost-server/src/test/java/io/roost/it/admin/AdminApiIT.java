package io.roost.it.admin;

import static io.roost.it.Http.ADMIN;
import static io.roost.it.Http.ADMIN_PASSWORD;
import static io.roost.it.Http.ADMIN_USER;
import static io.roost.it.Http.bearer;
import static io.roost.it.Http.json;
import static io.roost.it.Http.ok;
import static io.roost.it.Http.okJson;
import static io.roost.it.Problems.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.AdminBrowser;
import io.roost.it.Database;
import io.roost.it.DeployedRoost;
import io.roost.it.Ncs;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import io.roost.it.TopicEvents;
import io.roost.it.Wait;
import io.roost.client.device.RoostDevice;
import io.roost.it.Devices;
import io.roost.it.Devices.Recorder;
import io.roost.it.WsDevice;
import io.roost.it.chat.GroupChats;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.parallel.Isolated;

/** The admin API: the operator session (cookie + CSRF), the overview and its history, audited actions. */
@Isolated("compares the overview's server-wide counts with the database")
class AdminApiIT extends DeployedRoost {

    static final String PASSWORD = TestUsers.PASSWORD;

    @RegisterExtension
    static final TopicEvents groupEvents = new TopicEvents("roost-group-events", "groupId");

    User user() throws Exception {
        return TestUsers.register(baseUrl, "ad-");
    }

    @Test
    void operatorsSignInWithACookieAndEveryChangeNeedsTheCsrfToken() throws Exception {
        AdminBrowser b = new AdminBrowser(base());
        assertProblem(b.send("GET", "api/v1/admin/session", null, false), 401, "no-session");
        assertProblem(b.send("GET", "api/v1/admin/overview", null, false), 401, "missing-credentials");
        assertProblem(b.signIn(ADMIN_USER, "wrong password"), 401, "invalid-credentials");
        User plain = user();
        assertProblem(b.signIn(plain.name(), PASSWORD), 403, "forbidden");
        assertProblem(b.send("POST", "api/v1/admin/session", "{\"username\":", false), 400, "malformed-json");

        var signedIn = b.signIn(ADMIN_USER, ADMIN_PASSWORD);
        assertEquals(200, signedIn.statusCode(), signedIn.body());
        String cookie = signedIn.headers().allValues("set-cookie").stream().filter(c -> c.startsWith("JSESSIONID")).findFirst().orElseThrow();
        assertTrue(cookie.contains("HttpOnly"), cookie);
        assertTrue(cookie.toLowerCase().contains("samesite=strict"), cookie);
        assertEquals(200, b.send("GET", "api/v1/admin/overview", null, false).statusCode());
        assertEquals(b.csrf(), json(b.send("GET", "api/v1/admin/session", null, false)).getString("csrfToken"));

        // a change with the cookie but without the token is refused before it reaches the API
        assertProblem(b.send("DELETE", "api/v1/admin/accounts/" + plain.id() + "/tokens", null, false), 403, "csrf-token-missing");
        assertEquals(200, http().get("api/v1/accounts/me", plain.auth()).statusCode(), "nothing was revoked");
        var revoked = b.send("DELETE", "api/v1/admin/accounts/" + plain.id() + "/tokens", null, true);
        assertEquals(200, revoked.statusCode(), revoked.body());
        assertEquals(1, json(revoked).getInt("count"));
        assertEquals(401, http().get("api/v1/accounts/me", plain.auth()).statusCode());

        assertEquals(204, b.send("DELETE", "api/v1/admin/session", null, true).statusCode());
        assertEquals(401, b.send("GET", "api/v1/admin/overview", null, false).statusCode());
        assertEquals(403, http().get("api/v1/admin/overview", bearer(user().token())).statusCode(), "users are not operators");
    }

    @Test
    void theOverviewCountsWhatIsOnlineAndItsHistoryIsSampled() throws Exception {
        User u = user();
        RoostDevice device = Devices.online(baseUrl, u, "web", "w", new Recorder());
        long onlineSince = System.currentTimeMillis() / 1000;
        String channel = "admin-ch-" + UUID.randomUUID().toString().substring(0, 8);
        ok(ncs().send(Ncs.member("n1-" + channel, 103, channel, 4242, 1, System.currentTimeMillis(), null)));
        Reading reading = overviewBeside(Long.parseLong(u.id()), channel);
        JsonObject overview = reading.overview();
        Others others = reading.others();
        assertEquals(others.onlineUsers() + 1, overview.getJsonNumber("onlineUsers").longValue(), "ours and the others': " + reading);
        assertEquals(others.onTheWeb() + 1, overview.getJsonObject("onlineByDeviceType").getJsonNumber("web").longValue(),
                "ours and the others': " + reading);
        assertEquals(others.rtcChannels() + 1, overview.getJsonNumber("rtcChannels").longValue(), "ours and the others': " + reading);
        assertTrue(overview.getBoolean("databaseUp"));
        assertTrue(overview.getBoolean("brokerUp"));
        JsonObject lag = overview.getJsonObject("consumerLag");
        assertTrue(lag.containsKey("roost-login-log"), lag.toString());
        assertTrue(lag.values().stream().allMatch(v -> ((jakarta.json.JsonNumber) v).longValue() >= 0), "every lag is known: " + lag);
        device.close();

        // the sampler writes every 10 s: within half a minute a 10 s bucket that began after our login
        // has its online_users point (a server that ran before has older ones)
        long laterBucket = onlineSince / 10 * 10 + 10;
        Wait.until("an online_users point sampled after our login", Duration.ofSeconds(30),
                () -> okJson(http().get("api/v1/admin/metrics?range=1h", ADMIN)).getJsonArray("series").stream()
                        .map(JsonValue::asJsonObject).filter(s -> s.getString("metric").equals("online_users"))
                        .flatMap(s -> s.getJsonArray("points").stream())
                        .anyMatch(p -> p.asJsonArray().getJsonNumber(0).longValue() >= laterBucket));
        JsonObject metrics = json(http().get("api/v1/admin/metrics?range=1h", ADMIN));
        assertEquals(10, metrics.getInt("stepSeconds"));
        assertEquals(300, json(http().get("api/v1/admin/metrics?range=1d", ADMIN)).getInt("stepSeconds"));
        assertProblem(http().get("api/v1/admin/metrics?range=1y", ADMIN), 400, "invalid-range");
    }

    /** Everyone else's part of the overview's server-wide numbers, as the database has it. */
    record Others(long onlineUsers, long onTheWeb, long rtcChannels) {
    }

    /** An overview, and the others' part of its numbers while it was read. */
    record Reading(JsonObject overview, Others others) {
    }

    /**
     * The overview beside our user and channel. Devices that earlier classes left behind time out
     * at any moment, so the others' part is counted just before and just after the overview is
     * read, and the read is taken again until the two counts agree: then the overview's numbers
     * must be exactly theirs plus ours.
     */
    Reading overviewBeside(long ourUid, String ourChannel) throws Exception {
        AtomicReference<Reading> reading = new AtomicReference<>();
        try (Connection c = Database.connect()) {
            Wait.until("an overview read while no one else's devices or channels changed", Duration.ofSeconds(20), () -> {
                Others before = others(c, ourUid, ourChannel);
                JsonObject overview = okJson(http().get("api/v1/admin/overview", ADMIN));
                Others after = others(c, ourUid, ourChannel);
                reading.set(new Reading(overview, after));
                return before.equals(after);
            });
        }
        return reading.get();
    }

    static Others others(Connection c, long ourUid, String ourChannel) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT (SELECT count(DISTINCT uid) FROM presence_device_route WHERE uid <> ?),
                       (SELECT count(DISTINCT uid) FROM presence_device_route WHERE uid <> ? AND device_type = 'web'),
                       (SELECT count(DISTINCT channel_name) FROM rtc_member WHERE online AND channel_name <> ?)""")) {
            ps.setLong(1, ourUid);
            ps.setLong(2, ourUid);
            ps.setString(3, ourChannel);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new Others(rs.getLong(1), rs.getLong(2), rs.getLong(3));
            }
        }
    }

    @Test
    void accountActionsAreAuditedAndReachTheDevices() throws Exception {
        User u = user();
        Recorder heard = new Recorder();
        Devices.online(baseUrl, u, "web", "w", heard);
        var found = json(http().get("api/v1/admin/accounts?q=" + u.name(), ADMIN));
        assertEquals(u.id(), found.getJsonArray("items").getJsonObject(0).getString("id"));
        assertEquals(u.id(), json(http().get("api/v1/admin/accounts?q=" + u.id(), ADMIN)).getJsonArray("items").getJsonObject(0).getString("id"));
        var detail = json(http().get("api/v1/admin/accounts/" + u.id(), ADMIN));
        assertEquals("web", detail.getJsonArray("devices").getJsonObject(0).getString("deviceType"), detail.toString());

        // kick one device: it gets the kick frame and is closed
        assertEquals(1, json(http().delete("api/v1/admin/accounts/" + u.id() + "/devices/web", ADMIN)).getInt("count"));
        assertEquals("kicked_by_admin", heard.awaitKick(Duration.ofSeconds(20)));
        heard.awaitStopped(Duration.ofSeconds(20)); // a kick that says not to come back
        assertEquals(List.of(1008), heard.closes());
        assertProblem(http().delete("api/v1/admin/accounts/" + u.id() + "/devices/web", ADMIN), 404, "not-found");
        assertProblem(http().delete("api/v1/admin/accounts/" + u.id() + "/devices/toaster", ADMIN), 400, "unknown-device-type");

        // disable: found among all statuses, then recovered
        Recorder again = new Recorder();
        Devices.online(baseUrl, u, "web", "w", again);
        assertEquals("DISABLED", json(http().post("api/v1/admin/accounts/" + u.id() + "/disable", ADMIN, "")).getString("status"));
        assertEquals("account_disabled", again.awaitKick(Duration.ofSeconds(20)));
        again.awaitStopped(Duration.ofSeconds(20));
        assertEquals("DISABLED", json(http().get("api/v1/admin/accounts?q=" + u.name(), ADMIN)).getJsonArray("items").getJsonObject(0).getString("status"));
        assertEquals("ACTIVE", json(http().post("api/v1/admin/accounts/" + u.id() + "/recover", ADMIN, "")).getString("status"));

        var audit = json(http().get("api/v1/admin/audit?targetType=account&targetId=" + u.id(), ADMIN)).getJsonArray("items");
        List<String> actions = audit.getValuesAs(JsonObject.class).stream().map(e -> e.getString("action") + ":" + e.getString("outcome")).toList();
        assertEquals(List.of("recover:ok", "disable:ok", "kick-device:refused", "kick-device:ok"), actions.subList(0, 4), actions.toString());
    }

    @Test
    void groupsRoomsAndChannelsForOperators() throws Exception {
        User owner = user();
        User member = user();
        var created = http().post("api/v1/groups", owner.auth(), "{\"name\":\"Secret club " + owner.name() + "\",\"type\":\"chat\","
                + "\"joinPolicy\":\"open\",\"visibility\":\"hidden\"}");
        assertEquals(201, created.statusCode(), created.body());
        String groupId = json(created).getString("id");
        var invited = http().post("api/v1/groups/" + groupId + "/invitations", owner.auth(), "{\"uid\":\"" + member.id() + "\"}");
        assertEquals(201, invited.statusCode(), invited.body());
        var answered = http().post("api/v1/groups/requests/" + json(invited).getString("id") + "/answer", member.auth(), "{\"decision\":\"accept\"}");
        assertEquals(200, answered.statusCode(), answered.body());

        var found = json(http().get("api/v1/admin/groups?q=secret%20club%20" + owner.name(), ADMIN));
        assertEquals(groupId, found.getJsonArray("items").getJsonObject(0).getString("id"), "hidden groups are found by operators");
        assertEquals(2, json(http().get("api/v1/admin/groups/" + groupId + "/members", ADMIN)).getJsonArray("items").size());
        assertProblem(http().put("api/v1/admin/groups/" + groupId + "/owner/" + owner.id(), ADMIN, ""), 400, "self-transfer");
        assertEquals(member.id(), json(http().put("api/v1/admin/groups/" + groupId + "/owner/" + member.id(), ADMIN, "")).getString("ownerId"));
        assertEquals("DISSOLVED", json(http().delete("api/v1/admin/groups/" + groupId, ADMIN)).getString("status"));
        assertEquals("DISSOLVED", json(http().get("api/v1/admin/groups/" + groupId, ADMIN)).getString("status"));

        String room = "admin-room-" + UUID.randomUUID().toString().substring(0, 8);
        assertEquals(201, http().post("api/v1/rooms/" + room + "/sessions", owner.auth(), "{}").statusCode());
        assertEquals(200, http().post("api/v1/rooms/" + room + "/viewers/me", member.auth(), "").statusCode());
        var closed = json(http().delete("api/v1/admin/rooms/" + room + "/session", ADMIN));
        assertEquals(1, closed.getInt("online"), closed.toString());
        assertProblem(http().delete("api/v1/admin/rooms/" + room + "/session", ADMIN), 404, "no-open-session");

        String channel = "admin-kick-" + UUID.randomUUID().toString().substring(0, 8);
        Ncs ncs = ncs();
        assertEquals(200, ncs.send(Ncs.member("k1-" + channel, 105, channel, 777, 1, System.currentTimeMillis(), null)).statusCode());
        assertProblem(http().post("api/v1/admin/channels/" + channel + "/members/778/kick", ADMIN, ""), 409, "not-online");
        assertEquals(1, json(http().post("api/v1/admin/channels/" + channel + "/members/777/kick", ADMIN, "")).getInt("count"));
        var kicks = json(http().get("api/v1/presence/channels/" + channel + "/kicks", ADMIN)).getJsonArray("kicks");
        assertEquals(777, kicks.getJsonObject(0).getInt("uid"), kicks.toString());

        var roomAudit = json(http().get("api/v1/admin/audit?targetType=room&targetId=" + room, ADMIN)).getJsonArray("items");
        assertEquals(List.of("close-room:refused", "close-room:ok"), roomAudit.getValuesAs(JsonObject.class).stream()
                .map(e -> e.getString("action") + ":" + e.getString("outcome")).toList());
        assertFalse(json(http().get("api/v1/admin/audit?limit=5", ADMIN)).getJsonArray("items").isEmpty());
        assertProblem(http().get("api/v1/admin/audit?limit=0", ADMIN), 400, "invalid-limit");
    }

    /**
     * An operator with no role in a group mutes (for a time), unmutes and removes its members with
     * the group API's effects: the members' sends refused while muted, the group's system messages
     * and events naming the operator, the removed member's device told and its view ending at its
     * removal. Bad input, the owner, a dissolved group and a caller who is no operator change nothing;
     * every call is audited.
     */
    @Test
    void operatorsMuteUnmuteAndRemoveMembersOfAnyGroup() throws Exception {
        GroupChats chats = new GroupChats(baseUrl);
        User owner = user();
        User loud = user();
        User leaving = user();
        String g = chats.group(owner, "chat", loud, leaving);
        String operator = json(http().get("api/v1/accounts/me", ADMIN)).getString("id");
        String mutes = "api/v1/admin/groups/" + g + "/mutes/";
        OffsetDateTime until = OffsetDateTime.now().plusHours(1).withNano(0);

        JsonObject muted = okJson(http().put(mutes + loud.id(), ADMIN, "{\"until\":\"" + until + "\"}"));
        assertTrue(muted.getBoolean("muted"), muted.toString());
        assertTrue(OffsetDateTime.parse(muted.getString("mutedUntil")).isEqual(until), muted.toString());
        assertEquals("muted", chats.code(chats.send(loud, g, "\"type\":\"text\",\"text\":\"hush?\"")));
        JsonObject listed = json(http().get("api/v1/groups/" + g + "/members?limit=10", owner.auth())).getJsonArray("items")
                .getValuesAs(JsonObject.class).stream().filter(m -> m.getString("uid").equals(loud.id())).findFirst().orElseThrow();
        assertTrue(listed.getBoolean("muted"), "the group API's member list shows the mute too: " + listed);

        // refused, and nothing changes: bad input, the owner, no such member or group, no operator
        assertProblem(http().put(mutes + loud.id(), ADMIN, "{\"until\":\"2001-01-01T00:00:00Z\"}"), 400, "invalid-until");
        assertProblem(http().put(mutes + loud.id(), ADMIN, "{\"until\":\"tomorrow\"}"), 400, "malformed-json");
        assertProblem(http().put(mutes + "x1", ADMIN, "{}"), 400, "invalid-id");
        assertProblem(http().put(mutes + owner.id(), ADMIN, "{}"), 409, "is-owner");
        assertProblem(http().delete("api/v1/admin/groups/" + g + "/members/" + owner.id(), ADMIN), 409, "is-owner");
        assertProblem(http().put(mutes + user().id(), ADMIN, "{}"), 404, "not-found");
        assertProblem(http().put("api/v1/admin/groups/1/mutes/" + loud.id(), ADMIN, "{}"), 404, "not-found");
        assertProblem(http().delete(mutes + loud.id(), owner.auth()), 403, "forbidden"); // the owner, but no operator
        assertProblem(http().delete("api/v1/admin/groups/" + g + "/members/" + loud.id(), bearer(loud.token())), 403, "forbidden");
        assertTrue(okJson(http().get("api/v1/admin/groups/" + g + "/members?limit=10", ADMIN)).getJsonArray("items")
                .getValuesAs(JsonObject.class).stream().anyMatch(m -> m.getString("uid").equals(loud.id()) && m.getBoolean("muted")));

        JsonObject unmuted = okJson(http().delete(mutes + loud.id(), ADMIN));
        assertFalse(unmuted.getBoolean("muted"), unmuted.toString());
        assertEquals(JsonValue.NULL, unmuted.getOrDefault("mutedUntil", JsonValue.NULL), unmuted.toString());
        chats.text(loud, g, "free to speak");

        WsDevice pad = WsDevice.login(baseUrl, leaving.token(), "web", "w");
        try {
            JsonObject after = okJson(http().delete("api/v1/admin/groups/" + g + "/members/" + leaving.id(), ADMIN));
            assertEquals(2, after.getInt("memberCount"), after.toString());
            JsonObject told = pad.await("groupOp");
            assertEquals("kicked", told.getString("op"), told.toString());
            assertEquals(operator, told.getString("actor"), told.toString());
        } finally {
            pad.bye();
        }
        assertProblem(http().delete("api/v1/admin/groups/" + g + "/members/" + leaving.id(), ADMIN), 404, "not-found");
        chats.text(owner, g, "after the removal");
        List<JsonObject> seen = chats.messages(leaving, g, "?limit=50").getJsonArray("items").getValuesAs(JsonObject.class);
        JsonObject last = seen.get(seen.size() - 1);
        assertEquals("kicked", last.getJsonObject("event").getString("type"), "the removed member sees up to its removal: " + seen);
        assertEquals(operator, last.getJsonObject("event").getString("actor"), last.toString());
        List<String> system = chats.messages(owner, g, "?limit=50").getJsonArray("items").getValuesAs(JsonObject.class).stream()
                .filter(m -> m.containsKey("event") && !m.isNull("event")).map(m -> m.getJsonObject("event").getString("type")).toList();
        assertEquals(List.of("created", "joined", "joined", "muted", "unmuted", "kicked"), system);

        BlockingQueue<JsonObject> events = groupEvents.events(g);
        for (String type : List.of("muted", "unmuted", "kicked")) {
            JsonObject event;
            do {
                event = events.poll(20, TimeUnit.SECONDS);
                assertNotNull(event, "the group's " + type + " event on roost-group-events");
            } while (!event.getString("type").equals(type));
            assertEquals(operator, event.getString("actor"), event.toString());
        }

        assertEquals("DISSOLVED", okJson(http().delete("api/v1/admin/groups/" + g, ADMIN)).getString("status"));
        assertProblem(http().put(mutes + loud.id(), ADMIN, "{}"), 409, "group-dissolved");

        List<String> audited = json(http().get("api/v1/admin/audit?targetType=group&targetId=" + g + "&limit=20", ADMIN))
                .getJsonArray("items").getValuesAs(JsonObject.class).stream()
                .map(e -> e.getString("action") + ":" + e.getString("outcome")).toList();
        assertEquals(List.of("mute-member:refused", "dissolve:ok", "remove-member:refused", "remove-member:ok", "unmute-member:ok",
                "mute-member:refused", "remove-member:refused", "mute-member:refused", "mute-member:refused", "mute-member:ok"),
                audited, "newest first; the 400s of a body or an id that do not parse and the 403s never reach the action");
        JsonObject first = json(http().get("api/v1/admin/audit?targetType=group&targetId=" + g + "&limit=20", ADMIN))
                .getJsonArray("items").getJsonObject(audited.size() - 1);
        assertEquals(operator, first.getString("actorId"));
        assertEquals("uid " + loud.id() + " until " + until, first.getString("detail"), first.toString());
    }
}
