package io.roost.it;

import static io.roost.it.Http.okJson;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.roost.it.TestUsers.User;
import jakarta.json.JsonObject;
import java.net.URL;

/** The social graph as tests arrange it: friends in approval mode (over REST, or over live devices' frames), and the mode a class needs. */
public final class Social {

    /** The system property the follow-mode Failsafe execution sets (pom.xml), beside ROOST_SOCIAL_MODE=follow for its server. */
    private static final String MODE_PROPERTY = "roost.test.social.mode";

    private Social() {
    }

    /**
     * Fails unless this is the follow-mode execution: a follow-mode class run against the approval
     * server (a {@code -Dit.test=} run of the default execution) must be red, not skipped.
     */
    public static void assertFollowModeExecution() {
        assertEquals("follow", System.getProperty(MODE_PROPERTY),
                "runs only in the follow-mode Failsafe execution (a server with ROOST_SOCIAL_MODE=follow), not in this one");
    }

    /**
     * The server tells a client its social mode before any trial: in the {@code hello} answer and
     * in REST's social settings, the same word; and the other mode's follow or friend request is
     * refused, so the word is the mode the server really runs.
     */
    public static void assertModeAnnounced(URL base, User user, String mode) throws Exception {
        WsDevice device = WsDevice.connect(base);
        try {
            device.sendHello("web", "mode-" + user.id());
            assertEquals(mode, device.expect("hello").getString("socialMode"));
        } finally {
            device.bye();
        }
        JsonObject settings = okJson(new Http(base).get("api/v1/social/settings", user.auth()));
        assertEquals(mode, settings.getString("mode"), settings.toString());
        assertEquals(3, settings.getInt("strangerMessageLimit"), "ROOST_SOCIAL_STRANGER_MESSAGE_LIMIT, the default");
        var wrongMode = mode.equals("follow") ? new Http(base).post("api/v1/social/friend-requests", user.auth(), "{\"to\":\"1\"}")
                : new Http(base).put("api/v1/social/following/1", user.auth(), "");
        assertEquals(409, wrongMode.statusCode(), wrongMode.body());
        assertEquals("urn:roost:problem:wrong-social-mode", Http.json(wrongMode).getString("type"));
    }

    /** {@code from} asks {@code to} to be friends, with a message or none (null); the new pending request's id. */
    public static String ask(URL base, User from, User to, String message) {
        var r = new Http(base).post("api/v1/social/friend-requests", from.auth(), "{\"to\":\"" + to.id() + "\""
                + (message == null ? "" : ",\"message\":\"" + message + "\"") + "}");
        assertEquals(201, r.statusCode(), "a new pending request: " + r.body());
        return Http.json(r).getJsonObject("request").getString("id");
    }

    /** Makes two users friends over REST (approval mode): {@code asker} asks, {@code addressee} accepts; each then follows the other. */
    public static void befriend(URL base, User asker, User addressee) {
        String id = ask(base, asker, addressee, null);
        JsonObject answered = okJson(new Http(base).post("api/v1/social/friend-requests/" + id + "/answer", addressee.auth(),
                "{\"decision\":\"accept\"}"));
        assertEquals("ACCEPTED", answered.getString("status"), answered.toString());
    }

    /**
     * Makes two users friends over their live devices' friendOp frames, as apps do: the request is
     * forwarded to the addressee's device, and the acceptance to the asker's, wherever they are connected.
     * On raw frames, as its callers are (ContactPresenceIT's growing versions, TwoNodeIT): it checks the forwarded frames' fields.
     */
    public static void befriend(User asker, WsDevice askerDevice, User addressee, WsDevice addresseeDevice, String message)
            throws InterruptedException {
        JsonObject asked = askerDevice.friendOp("\"op\":\"request\",\"uid\":\"" + addressee.id() + "\",\"message\":\"" + message + "\"");
        assertEquals("ok", asked.getString("result"), asked.toString());
        JsonObject forwarded = addresseeDevice.await("friendOp");
        assertEquals("request", forwarded.getString("op"), forwarded.toString());
        assertEquals(asker.id(), forwarded.getString("from"), forwarded.toString());
        assertEquals(message, forwarded.getString("message"), forwarded.toString());
        assertEquals(asked.getString("requestId"), forwarded.getString("requestId"), forwarded.toString());

        JsonObject answered = addresseeDevice.friendOp("\"op\":\"answer\",\"requestId\":\"" + forwarded.getString("requestId")
                + "\",\"decision\":\"accept\"");
        assertEquals("ACCEPTED", answered.getString("status"), answered.toString());
        JsonObject told = askerDevice.await("friendOp");
        assertEquals("answer", told.getString("op"), told.toString());
        assertEquals("ACCEPTED", told.getString("status"), told.toString());
    }
}
