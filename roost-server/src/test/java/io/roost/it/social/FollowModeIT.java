package io.roost.it.social;

import static io.roost.it.Http.json;
import static io.roost.it.Problems.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.DeployedRoost;
import io.roost.it.Social;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import com.fasterxml.jackson.databind.JsonNode;
import io.roost.client.device.Presence;
import io.roost.client.device.RoostDevice;
import io.roost.it.Devices;
import io.roost.it.Devices.Recorder;
import io.roost.it.Wait;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The social graph in follow mode (Weibo-like) over REST and frames. Runs in its own Failsafe
 * execution, against a WildFly started with ROOST_SOCIAL_MODE=follow (pom.xml); the other ITs run
 * approval mode.
 */
class FollowModeIT extends DeployedRoost {

    /** Only in the follow-mode execution: a -Dit.test=... run of another execution fails here instead of testing approval mode. */
    @BeforeAll
    static void inFollowMode() {
        Social.assertFollowModeExecution();
    }

    User user() throws Exception {
        return TestUsers.registerWithoutPassword(baseUrl, "fm-", "web", "w");
    }

    @Test
    void theServerSaysItRunsFollowMode() throws Exception {
        Social.assertModeAnnounced(baseUrl, user(), "follow");
    }

    @Test
    void followWithoutConsentAndMutualFollowsAreFriends() throws Exception {
        User ann = user();
        User ben = user();
        var followed = http().put("api/v1/social/following/" + ben.id(), ann.auth(), "");
        assertEquals(201, followed.statusCode(), followed.body());
        assertTrue(json(followed).getBoolean("following"));
        assertFalse(json(followed).getBoolean("friends"));
        assertEquals(200, http().put("api/v1/social/following/" + ben.id(), ann.auth(), "").statusCode(), "following twice");
        assertEquals(1, json(http().get("api/v1/social/users/" + ben.id() + "/counts", ann.auth())).getInt("followers"));
        assertEquals(ann.id(), json(http().get("api/v1/social/users/" + ben.id() + "/followers", ann.auth()))
                .getJsonArray("items").getString(0));

        var back = http().put("api/v1/social/following/" + ann.id(), ben.auth(), "");
        assertTrue(json(back).getBoolean("friends"), back.body());
        assertEquals(ben.id(), json(http().get("api/v1/social/users/me/friends", ann.auth())).getJsonArray("items").getString(0));

        assertEquals(204, http().delete("api/v1/social/following/" + ann.id(), ben.auth()).statusCode());
        assertFalse(json(http().get("api/v1/social/relations/" + ben.id(), ann.auth())).getBoolean("friends"));
        assertEquals(0, json(http().get("api/v1/social/users/" + ann.id() + "/counts", ann.auth())).getInt("followers"));

        // the approval mode's endpoints are refused, and change nothing
        assertProblem(http().post("api/v1/social/friend-requests", ann.auth(), "{\"to\":\"" + ben.id() + "\"}"), 409,
                "wrong-social-mode");
        // a blocked user cannot follow
        assertEquals(201, http().put("api/v1/social/blocks/" + ann.id(), ben.auth(), "").statusCode());
        assertEquals(204, http().delete("api/v1/social/following/" + ben.id(), ann.auth()).statusCode());
        assertProblem(http().put("api/v1/social/following/" + ben.id(), ann.auth(), ""), 403, "forbidden");
    }

    @Test
    void framesFollowAndFollowersHearPresence() throws Exception {
        User cat = user();
        User dan = user();
        Recorder catHeard = new Recorder();
        RoostDevice catWeb = Devices.online(baseUrl, cat, "web", "w", catHeard);
        JsonNode followed = friendOp(catWeb, "follow", dan);
        assertEquals("ok", followed.path("result").asText(), followed.toString());
        assertEquals("wrong-social-mode", friendOp(catWeb, "request", dan).path("code").asText());
        assertEquals(1, friendOp(catWeb, "counts", null).path("following").asInt());

        // follow mode tells followers (ROOST_SOCIAL_PRESENCE_AUDIENCE defaults to followers here)
        RoostDevice danWeb = Devices.online(baseUrl, dan, "web", "w", new Recorder());
        Wait.until("a presence frame", Duration.ofSeconds(20), () -> !catHeard.presences().isEmpty());
        Presence presence = catHeard.presences().get(0);
        assertEquals(dan.id(), presence.uid());
        assertTrue(presence.online());

        assertEquals("ok", friendOp(catWeb, "unfollow", dan).path("result").asText());
        assertEquals(0, friendOp(catWeb, "counts", null).path("following").asInt());
        danWeb.close();
        catWeb.close();
    }

    /** A friendOp about {@code other} (none: null) and its outcome. */
    private static JsonNode friendOp(RoostDevice d, String op, User other) throws Exception {
        return Devices.outcome(d.request("friendOp", op, other == null ? null : RoostDevice.fields().put("uid", other.id())));
    }
}
