package io.roost.it.social;

import static io.roost.it.Http.ADMIN;
import static io.roost.it.Http.json;
import static io.roost.it.Problems.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.DeployedRoost;
import io.roost.it.Social;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The social REST API in approval mode (ROOST_SOCIAL_MODE=approval in the tests). */
class SocialApiIT extends DeployedRoost {

    User user() throws Exception {
        return TestUsers.register(baseUrl, "so-");
    }

    JsonObject relation(User a, User b) throws Exception {
        return json(http().get("api/v1/social/relations/" + b.id(), a.auth()));
    }

    @Test
    void theServerSaysItRunsApprovalMode() throws Exception {
        Social.assertModeAnnounced(baseUrl, user(), "approval");
    }

    @Test
    void aRequestIsSeenByBothSidesAndAcceptingMakesFriends() throws Exception {
        User alice = user();
        User bob = user();
        String id = Social.ask(baseUrl, alice, bob, "hi, it's Alice");
        // Asking again changes nothing: the same pending request.
        var again = http().post("api/v1/social/friend-requests", alice.auth(), "{\"to\":\"" + bob.id() + "\"}");
        assertEquals(200, again.statusCode(), again.body());
        assertEquals(id, json(again).getJsonObject("request").getString("id"));

        var incoming = json(http().get("api/v1/social/friend-requests?direction=incoming", bob.auth()));
        assertEquals(1, incoming.getJsonArray("items").size(), incoming.toString());
        assertEquals("hi, it's Alice", incoming.getJsonArray("items").getJsonObject(0).getString("message"));
        var outgoing = json(http().get("api/v1/social/friend-requests?direction=outgoing", alice.auth()));
        assertEquals(id, outgoing.getJsonArray("items").getJsonObject(0).getString("id"));

        assertProblem(http().post("api/v1/social/friend-requests/" + id + "/answer", alice.auth(), "{\"decision\":\"accept\"}"),
                403, "forbidden");
        var accepted = http().post("api/v1/social/friend-requests/" + id + "/answer", bob.auth(),
                "{\"decision\":\"accept\",\"note\":\"welcome\"}");
        assertEquals(200, accepted.statusCode(), accepted.body());
        assertEquals("ACCEPTED", json(accepted).getString("status"));
        assertProblem(http().post("api/v1/social/friend-requests/" + id + "/answer", bob.auth(), "{\"decision\":\"reject\"}"),
                409, "request-not-pending");
        assertTrue(relation(alice, bob).getBoolean("friends"));
        assertEquals(List.of(bob.id()), ids(http().get("api/v1/social/users/me/friends", alice.auth())));
        assertEquals(List.of(alice.id()), ids(http().get("api/v1/social/users/" + bob.id() + "/followers", ADMIN)));
        assertProblem(http().get("api/v1/social/users/" + bob.id() + "/friends", alice.auth()), 403, "forbidden");
        assertProblem(http().post("api/v1/social/friend-requests", alice.auth(), "{\"to\":\"" + bob.id() + "\"}"),
                409, "already-friends");

        // Removing tells nobody and undoes both directions.
        assertEquals(204, http().delete("api/v1/social/friends/" + alice.id(), bob.auth()).statusCode());
        JsonObject r = relation(alice, bob);
        assertFalse(r.getBoolean("following") || r.getBoolean("followedBy"), r.toString());
        assertEquals(0, json(http().get("api/v1/social/users/" + bob.id() + "/counts", ADMIN)).getInt("followers"));
    }

    @Test
    void askingBackIsAcceptingAndRejectedOrIgnoredRequestsLeaveNoEdge() throws Exception {
        User a = user();
        User b = user();
        Social.ask(baseUrl, a, b, "first");
        var back = http().post("api/v1/social/friend-requests", b.auth(), "{\"to\":\"" + a.id() + "\"}");
        assertEquals(200, back.statusCode(), back.body());
        assertTrue(json(back).getBoolean("friends"));
        assertTrue(relation(a, b).getBoolean("friends"));

        User c = user();
        String rejected = Social.ask(baseUrl, c, a, "please");
        assertEquals("REJECTED", json(http().post("api/v1/social/friend-requests/" + rejected + "/answer", a.auth(),
                "{\"decision\":\"reject\"}")).getString("status"));
        User d = user();
        String ignored = Social.ask(baseUrl, d, a, "hello?");
        assertEquals("IGNORED", json(http().post("api/v1/social/friend-requests/" + ignored + "/answer", a.auth(),
                "{\"decision\":\"ignore\"}")).getString("status"));
        assertFalse(relation(a, c).getBoolean("followedBy"));
        assertFalse(relation(a, d).getBoolean("followedBy"));
        // A rejected sender may ask again later; the sender can withdraw a pending request.
        String retry = Social.ask(baseUrl, c, a, "second try");
        assertEquals(204, http().delete("api/v1/social/friend-requests/" + retry, c.auth()).statusCode());
        assertProblem(http().delete("api/v1/social/friend-requests/" + retry, c.auth()), 409, "request-not-pending");
        assertEquals(0, json(http().get("api/v1/social/friend-requests?direction=incoming", a.auth())).getJsonArray("items").size());
    }

    @Test
    void aBlockedUserCannotAskAndBlocksArePrivate() throws Exception {
        User a = user();
        User b = user();
        assertEquals(201, http().put("api/v1/social/blocks/" + b.id(), a.auth(), "").statusCode());
        assertEquals(200, http().put("api/v1/social/blocks/" + b.id(), a.auth(), "").statusCode());
        assertProblem(http().post("api/v1/social/friend-requests", b.auth(), "{\"to\":\"" + a.id() + "\"}"), 403, "forbidden");
        assertTrue(relation(b, a).getBoolean("blockedBy"));
        assertEquals(List.of(b.id()), ids(http().get("api/v1/social/blocks", a.auth())));
        assertEquals(List.of(), ids(http().get("api/v1/social/blocks", b.auth())));
        assertEquals(204, http().delete("api/v1/social/blocks/" + b.id(), a.auth()).statusCode());
        Social.ask(baseUrl, b, a, "friends again?");
    }

    @Test
    void permissionsPerContact() throws Exception {
        User a = user();
        User b = user();
        assertFalse(json(http().get("api/v1/social/permissions/" + b.id(), a.auth())).getBoolean("hidePresence"));
        var set = http().put("api/v1/social/permissions/" + b.id(), a.auth(), "{\"hidePresence\":true,\"muted\":false}");
        assertEquals(200, set.statusCode(), set.body());
        assertTrue(json(http().get("api/v1/social/permissions/" + b.id(), a.auth())).getBoolean("hidePresence"));
        assertFalse(json(http().get("api/v1/social/permissions/" + a.id(), b.auth())).getBoolean("hidePresence"));
    }

    @Test
    void refusalsAndBadInput() throws Exception {
        User a = user();
        assertProblem(http().put("api/v1/social/following/" + a.id(), a.auth(), ""), 409, "wrong-social-mode");
        assertProblem(http().post("api/v1/social/friend-requests", a.auth(), "{\"to\":\"" + a.id() + "\"}"), 400, "self-relation");
        assertProblem(http().post("api/v1/social/friend-requests", a.auth(), "{\"to\":\"12345\"}"), 404, "not-found");
        assertProblem(http().post("api/v1/social/friend-requests", a.auth(), "{\"to\":\"abc\"}"), 400, "invalid-id");
        assertProblem(http().post("api/v1/social/friend-requests", a.auth(), "{}"), 400, "validation-failed");
        assertProblem(http().post("api/v1/social/friend-requests/1/answer", a.auth(), "{\"decision\":\"maybe\"}"),
                400, "validation-failed");
        assertProblem(http().post("api/v1/social/friend-requests/1/answer", a.auth(), "{\"decision\":\"accept\"}"), 404, "not-found");
        assertProblem(http().get("api/v1/social/friend-requests?direction=sideways", a.auth()), 400, "invalid-direction");
        assertProblem(http().get("api/v1/social/users/me/followers?limit=0", a.auth()), 400, "invalid-limit");
        assertProblem(http().get("api/v1/social/users/me/followers", null), 401, "missing-credentials");
    }

    @Test
    void parallelRequestsAndAnswersStayConsistent() throws Exception {
        User target = user();
        List<User> askers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            askers.add(user());
        }
        ExecutorService pool = Executors.newFixedThreadPool(16);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Integer>> asks = new ArrayList<>();
        for (User u : askers) {
            for (int k = 0; k < 2; k++) { // each asks twice at once: one pending request each
                asks.add(pool.submit(() -> {
                    start.await();
                    return http().post("api/v1/social/friend-requests", u.auth(), "{\"to\":\"" + target.id() + "\"}").statusCode();
                }));
            }
        }
        start.countDown();
        int created = 0;
        for (Future<Integer> f : asks) {
            int s = f.get(60, TimeUnit.SECONDS);
            assertTrue(s == 200 || s == 201, "status " + s);
            created += s == 201 ? 1 : 0;
        }
        assertEquals(askers.size(), created, "one pending request per asker");
        var pending = json(http().get("api/v1/social/friend-requests?direction=incoming&limit=100", target.auth())).getJsonArray("items");
        assertEquals(askers.size(), pending.size());
        // Two answers race for every request: exactly one applies.
        List<Future<Integer>> answers = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        for (var p : pending) {
            String id = p.asJsonObject().getString("id");
            for (String decision : List.of("accept", "reject")) {
                answers.add(pool.submit(() -> {
                    go.await();
                    return http().post("api/v1/social/friend-requests/" + id + "/answer", target.auth(),
                            "{\"decision\":\"" + decision + "\"}").statusCode();
                }));
            }
        }
        go.countDown();
        int applied = 0;
        int conflicts = 0;
        for (Future<Integer> f : answers) {
            int s = f.get(60, TimeUnit.SECONDS);
            applied += s == 200 ? 1 : 0;
            conflicts += s == 409 ? 1 : 0;
        }
        pool.shutdown();
        assertEquals(askers.size(), applied);
        assertEquals(askers.size(), conflicts);
        int friends = ids(http().get("api/v1/social/users/me/friends", target.auth())).size();
        JsonObject counts = json(http().get("api/v1/social/users/me/counts", target.auth()));
        assertEquals(friends, counts.getInt("followers"), counts.toString());
        assertEquals(friends, counts.getInt("following"), counts.toString());
    }

    static List<String> ids(HttpResponse<String> r) {
        assertEquals(200, r.statusCode(), r.body());
        return json(r).getJsonArray("items").getValuesAs(jakarta.json.JsonString.class).stream()
                .map(jakarta.json.JsonString::getString).toList();
    }
}
