package io.roost.it.group;

import static io.roost.it.Http.json;
import static io.roost.it.Http.ok;
import static io.roost.it.Problems.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.Database;
import io.roost.it.DeployedRoost;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Groups and channels over REST: roles, refusals, joins, invitations, transfer, dissolve, search, races. */
class GroupApiIT extends DeployedRoost {

    User user() throws Exception {
        return TestUsers.registerWithoutPassword(baseUrl, "gr-", "web", "w");
    }

    JsonObject create(User owner, String body) throws Exception {
        var r = http().post("api/v1/groups", owner.auth(), body);
        assertEquals(201, r.statusCode(), r.body());
        return json(r);
    }

    String role(String groupId, User viewer, String uid) throws Exception {
        var members = json(http().get("api/v1/groups/" + groupId + "/members?limit=200", viewer.auth())).getJsonArray("items");
        return members.stream().map(JsonObject.class::cast).filter(m -> m.getString("uid").equals(uid))
                .map(m -> m.getString("role")).findFirst().orElse(null);
    }

    @Test
    void rolesDecideWhoMayDoWhat() throws Exception {
        User owner = user();
        User admin = user();
        User member = user();
        User other = user();
        JsonObject g = create(owner, "{\"name\":\"Hikers\",\"type\":\"chat\",\"tags\":[\"outdoor\"]}");
        String id = g.getString("id");
        assertEquals(owner.id(), g.getString("ownerId"));
        assertEquals(1, g.getInt("memberCount"));
        assertEquals(200, http().post("api/v1/groups/" + id + "/join", admin.auth(), "{}").statusCode());
        assertEquals(200, http().post("api/v1/groups/" + id + "/join", member.auth(), "{}").statusCode());
        assertProblem(http().post("api/v1/groups/" + id + "/join", member.auth(), "{}"), 409, "already-member");
        assertEquals("W", role(id, owner, member.id()));

        assertProblem(http().put("api/v1/groups/" + id + "/admins/" + admin.id(), member.auth(), ""), 403, "forbidden");
        assertEquals(204, http().put("api/v1/groups/" + id + "/admins/" + admin.id(), owner.auth(), "").statusCode());
        assertEquals("A", role(id, owner, admin.id()));

        assertProblem(http().patch("api/v1/groups/" + id, member.auth(), "{\"notice\":\"hi\"}"), 403, "forbidden");
        assertEquals("Meet at 9", json(http().patch("api/v1/groups/" + id, admin.auth(), "{\"notice\":\"Meet at 9\"}"))
                .getString("notice"));
        assertProblem(http().patch("api/v1/groups/" + id, admin.auth(), "{\"visibility\":\"hidden\"}"), 403, "forbidden");
        assertProblem(http().patch("api/v1/groups/" + id, other.auth(), "{\"notice\":\"x\"}"), 403, "forbidden");
        assertProblem(http().get("api/v1/groups/" + id + "/members", other.auth()), 403, "forbidden");

        // Admins kick W/R, not admins or the owner; nobody kicks the owner; the owner cannot quit.
        assertProblem(http().delete("api/v1/groups/" + id + "/members/" + owner.id(), admin.auth()), 403, "forbidden");
        assertProblem(http().delete("api/v1/groups/" + id + "/members/" + admin.id(), member.auth()), 403, "forbidden");
        assertProblem(http().delete("api/v1/groups/" + id + "/members/me", owner.auth()), 409, "owner-cannot-quit");
        assertEquals(204, http().delete("api/v1/groups/" + id + "/members/" + member.id(), admin.auth()).statusCode());
        assertEquals(2, json(http().get("api/v1/groups/" + id, owner.auth())).getInt("memberCount"));

        // Transfer: both roles change together.
        var t = http().put("api/v1/groups/" + id + "/owner/" + admin.id(), owner.auth(), "");
        assertEquals(200, t.statusCode(), t.body());
        assertEquals("O", role(id, admin, admin.id()));
        assertEquals("A", role(id, admin, owner.id()));
        assertEquals(204, http().delete("api/v1/groups/" + id + "/members/me", owner.auth()).statusCode());
        assertEquals(List.of(id), json(http().get("api/v1/groups/of/me", admin.auth())).getJsonArray("items").stream()
                .map(x -> x.asJsonObject().getString("id")).toList());

        // Dissolve: owner only; afterwards read-only.
        assertEquals(200, http().post("api/v1/groups/" + id + "/join", member.auth(), "{}").statusCode());
        assertProblem(http().delete("api/v1/groups/" + id, member.auth()), 403, "forbidden");
        assertEquals("DISSOLVED", json(http().delete("api/v1/groups/" + id, admin.auth())).getString("status"));
        assertProblem(http().patch("api/v1/groups/" + id, admin.auth(), "{\"notice\":\"again\"}"), 409, "group-dissolved");
        assertProblem(http().post("api/v1/groups/" + id + "/join", other.auth(), "{}"), 409, "group-dissolved");
        // The audit log recorded every change.
        assertEquals(List.of("created", "joined", "joined", "admin_added", "info_changed", "kicked", "owner_transferred",
                "quit", "joined", "dissolved"), auditLog(id));
    }

    /** The group's audit log (group_event), oldest first. */
    static List<String> auditLog(String groupId) throws Exception {
        try (Connection c = Database.connect(); PreparedStatement ps = c.prepareStatement(
                "SELECT event_type FROM group_event WHERE group_id = ? ORDER BY id")) {
            ps.setLong(1, Long.parseLong(groupId));
            List<String> events = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    events.add(rs.getString(1));
                }
            }
            return events;
        }
    }

    @Test
    void theOwnersRoleChangesOnlyByATransfer() throws Exception {
        User owner = user();
        User admin = user();
        String id = create(owner, "{\"name\":\"Owned\",\"type\":\"chat\"}").getString("id");
        ok(http().post("api/v1/groups/" + id + "/join", admin.auth(), "{}"));
        ok(http().put("api/v1/groups/" + id + "/admins/" + admin.id(), owner.auth(), ""));
        assertProblem(http().put("api/v1/groups/" + id + "/admins/" + owner.id(), owner.auth(), ""), 409, "is-owner");
        assertProblem(http().delete("api/v1/groups/" + id + "/admins/" + owner.id(), owner.auth()), 409, "is-owner");
        assertEquals("O", role(id, owner, owner.id()), "the owner is still the owner");
        assertEquals("A", role(id, owner, admin.id()));
        assertEquals(owner.id(), json(http().get("api/v1/groups/" + id, owner.auth())).getString("ownerId"));
        assertEquals(List.of("created", "joined", "admin_added"), auditLog(id), "the refusals recorded no change");
    }

    @Test
    void channelsApprovalsInvitationsAndHiddenGroups() throws Exception {
        User owner = user();
        User fan = user();
        User stranger = user();
        String channel = create(owner, "{\"name\":\"News\",\"type\":\"channel\",\"joinPolicy\":\"approval\"}").getString("id");
        var asked = http().post("api/v1/groups/" + channel + "/join", fan.auth(), "{\"message\":\"let me in\"}");
        assertEquals(202, asked.statusCode(), asked.body());
        String requestId = json(asked).getJsonObject("request").getString("id");
        assertProblem(http().get("api/v1/groups/" + channel + "/requests", fan.auth()), 403, "forbidden");
        var pending = json(http().get("api/v1/groups/" + channel + "/requests", owner.auth())).getJsonArray("items");
        assertEquals("let me in", pending.getJsonObject(0).getString("message"));
        assertProblem(http().post("api/v1/groups/requests/" + requestId + "/answer", fan.auth(), "{\"decision\":\"accept\"}"),
                403, "forbidden");
        assertEquals("ACCEPTED", json(http().post("api/v1/groups/requests/" + requestId + "/answer", owner.auth(),
                "{\"decision\":\"accept\",\"note\":\"welcome\"}")).getString("status"));
        assertProblem(http().post("api/v1/groups/requests/" + requestId + "/answer", owner.auth(), "{\"decision\":\"reject\"}"),
                409, "request-not-pending");
        assertEquals("R", role(channel, owner, fan.id()), "channel members read");

        String hidden = create(owner, "{\"name\":\"Secret\",\"type\":\"chat\",\"visibility\":\"hidden\",\"joinPolicy\":\"invite-only\"}")
                .getString("id");
        assertProblem(http().get("api/v1/groups/" + hidden, stranger.auth()), 404, "not-found");
        // joined by invitation only, and to a stranger it does not exist (HiddenGroupIT tries every operation)
        assertProblem(http().post("api/v1/groups/" + hidden + "/join", stranger.auth(), "{}"), 404, "not-found");
        var invited = http().post("api/v1/groups/" + hidden + "/invitations", owner.auth(), "{\"uid\":\"" + fan.id() + "\"}");
        assertEquals(201, invited.statusCode(), invited.body());
        assertEquals("ACCEPTED", json(http().post("api/v1/groups/requests/" + json(invited).getString("id") + "/answer",
                fan.auth(), "{\"decision\":\"accept\"}")).getString("status"));
        // A W member of a hidden group may not invite; a non-member is told the group does not exist.
        assertProblem(http().post("api/v1/groups/" + hidden + "/invitations", fan.auth(), "{\"uid\":\"" + stranger.id() + "\"}"),
                403, "forbidden");
        assertProblem(http().post("api/v1/groups/" + hidden + "/invitations", stranger.auth(), "{\"uid\":\"" + fan.id() + "\"}"),
                404, "not-found");
        var me = http().patch("api/v1/groups/" + hidden + "/members/me", fan.auth(), "{\"nick\":\"Fanny\"}");
        assertEquals("Fanny", json(me).getString("nick"), me.body());
    }

    @Test
    void badInput() throws Exception {
        User u = user();
        assertProblem(http().post("api/v1/groups", u.auth(), "{\"name\":\"x\",\"type\":\"forum\"}"), 400, "validation-failed");
        assertProblem(http().post("api/v1/groups", u.auth(), "{\"type\":\"chat\"}"), 400, "validation-failed");
        // the database cannot store a NUL character: the caller's fault, not a 500
        assertProblem(http().post("api/v1/groups", u.auth(), "{\"name\":\"a\\u0000b\",\"type\":\"chat\"}"), 400, "invalid-text");
        assertProblem(http().get("api/v1/groups/abc", u.auth()), 400, "invalid-id");
        assertProblem(http().get("api/v1/groups/1", u.auth()), 404, "not-found");
        assertProblem(http().get("api/v1/groups?q=a&tag=b", u.auth()), 400, "one-criterion");
        assertProblem(http().get("api/v1/groups?limit=0", u.auth()), 400, "invalid-limit");
        assertProblem(http().get("api/v1/groups/of/1", u.auth()), 403, "forbidden");
    }

    /** How a call that lost the race to lock the group is refused, by status (docs/api.md's problem types). */
    static final Map<Integer, String> RACE_LOSSES = Map.of(403, "forbidden", 404, "not-found");

    @Test
    void transferRacingKicksAlwaysLeavesExactlyOneOwner() throws Exception {
        for (int round = 0; round < 5; round++) {
            User owner = user();
            User admin = user();
            User member = user();
            String id = create(owner, "{\"name\":\"Race " + round + "\",\"type\":\"chat\"}").getString("id");
            ok(http().post("api/v1/groups/" + id + "/join", admin.auth(), "{}"));
            ok(http().post("api/v1/groups/" + id + "/join", member.auth(), "{}"));
            ok(http().put("api/v1/groups/" + id + "/admins/" + admin.id(), owner.auth(), ""));
            ExecutorService pool = Executors.newFixedThreadPool(3);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<HttpResponse<String>>> done = new ArrayList<>();
            done.add(pool.submit(() -> { go.await(); return http().put("api/v1/groups/" + id + "/owner/" + member.id(), owner.auth(), ""); }));
            done.add(pool.submit(() -> { go.await(); return http().delete("api/v1/groups/" + id + "/members/" + member.id(), admin.auth()); }));
            done.add(pool.submit(() -> { go.await(); return http().delete("api/v1/groups/" + id + "/members/" + admin.id(), owner.auth()); }));
            go.countDown();
            List<HttpResponse<String>> answers = new ArrayList<>();
            for (Future<HttpResponse<String>> f : done) {
                answers.add(f.get(60, TimeUnit.SECONDS));
            }
            pool.shutdown();
            // Each call is allowed on the group as it was, so whichever locks the group first wins. A later
            // one may find its caller's role weakened (403) or its target gone (404): refused, nothing changed.
            List<Integer> statuses = answers.stream().map(HttpResponse::statusCode).toList();
            assertTrue(statuses.stream().anyMatch(status -> status / 100 == 2), "one of the racing calls wins: " + statuses);
            for (HttpResponse<String> r : answers) {
                if (r.statusCode() / 100 != 2) {
                    String type = RACE_LOSSES.get(r.statusCode());
                    assertNotNull(type, "a loser is refused as forbidden (403) or not-found (404), got " + r.statusCode() + ": " + r.body());
                    assertProblem(r, r.statusCode(), type);
                }
            }
            try (Connection c = Database.connect(); PreparedStatement ps = c.prepareStatement(
                    "SELECT count(*) FILTER (WHERE role = 'O'), count(*), (SELECT member_count FROM grp WHERE id = ?),"
                            + " (SELECT owner_id FROM grp WHERE id = ?) = max(uid) FILTER (WHERE role = 'O')"
                            + " FROM group_member WHERE group_id = ?")) {
                long g = Long.parseLong(id);
                ps.setLong(1, g);
                ps.setLong(2, g);
                ps.setLong(3, g);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    assertEquals(1, rs.getInt(1), "exactly one owner");
                    assertEquals(rs.getInt(2), rs.getInt(3), "member_count equals rows");
                    assertTrue(rs.getBoolean(4), "grp.owner_id is the owner member");
                }
            }
        }
    }

    @Test
    void parallelJoinsCountEveryMemberOnce() throws Exception {
        User owner = user();
        String id = create(owner, "{\"name\":\"Crowd\",\"type\":\"chat\"}").getString("id");
        List<User> joiners = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            joiners.add(user());
        }
        ExecutorService pool = Executors.newFixedThreadPool(24);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Integer>> done = new ArrayList<>();
        for (User u : joiners) {
            for (int k = 0; k < 2; k++) {
                done.add(pool.submit(() -> { go.await(); return http().post("api/v1/groups/" + id + "/join", u.auth(), "{}").statusCode(); }));
            }
        }
        go.countDown();
        int joined = 0;
        int already = 0;
        for (Future<Integer> f : done) {
            int s = f.get(60, TimeUnit.SECONDS);
            joined += s == 200 ? 1 : 0;
            already += s == 409 ? 1 : 0;
        }
        pool.shutdown();
        assertEquals(12, joined);
        assertEquals(12, already);
        assertEquals(13, json(http().get("api/v1/groups/" + id, owner.auth())).getInt("memberCount"));
    }

    @Test
    void searchPagesAreCompleteAndStableAndHiddenGroupsNeverShow() throws Exception {
        String stem = "srch" + UUID.randomUUID().toString().substring(0, 6);
        Set<String> expected = new HashSet<>();
        try (Connection c = Database.connect(); PreparedStatement ps = c.prepareStatement("""
                INSERT INTO grp (id, name, tags, group_type, visibility, owner_id, member_count)
                VALUES (?, ?, CAST(? AS varchar[]), 'chat', ?, 1, 0)""")) {
            long base = System.nanoTime();
            for (int i = 0; i < 3000; i++) {
                boolean hidden = i % 10 == 0;
                long gid = base + i;
                ps.setLong(1, gid);
                ps.setString(2, stem + " group " + (i % 7 == 0 ? "same" : String.format("%05d", i)));
                ps.setString(3, "{" + stem + "tag}");
                ps.setString(4, hidden ? "hidden" : "public");
                ps.addBatch();
                if (!hidden) {
                    expected.add(Long.toString(gid));
                }
            }
            ps.executeBatch();
        }
        User u = user();
        for (String query : List.of("q=" + stem.toUpperCase(), "tag=" + stem + "tag")) {
            List<String> seen = new ArrayList<>();
            String after = null;
            int pages = 0;
            do {
                var r = http().get("api/v1/groups?" + query + "&limit=200"
                        + (after == null ? "" : "&after=" + java.net.URLEncoder.encode(after, "UTF-8")), u.auth());
                assertEquals(200, r.statusCode(), r.body());
                JsonObject page = json(r);
                page.getJsonArray("items").forEach(x -> seen.add(x.asJsonObject().getString("id")));
                after = page.isNull("next") ? null : page.getString("next");
                pages++;
            } while (after != null && pages < 100);
            assertEquals(expected.size(), seen.size(), query + ": no duplicates, no gaps");
            assertEquals(expected, new HashSet<>(seen), query);
        }
        var sample = json(http().get("api/v1/groups?limit=20", u.auth())).getJsonArray("items");
        assertEquals(20, sample.size());
        assertFalse(sample.stream().anyMatch(x -> x.asJsonObject().getString("visibility").equals("hidden")));
    }
}
