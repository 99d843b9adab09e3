package io.roost.it.social;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.roost.client.device.Presence;
import io.roost.client.device.RoostDevice;
import io.roost.it.DeployedRoost;
import io.roost.it.Devices;
import io.roost.it.Devices.Recorder;
import io.roost.it.Http;
import io.roost.it.Social;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import io.roost.it.WsDevice;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * friendOp frames over real WebSockets, forwarded requests and answers, and presence frames to
 * friends. The presence read at a device's start runs on the client library; the other tests keep
 * raw frames: one checks that presence versions grow frame by frame (the library drops frames not
 * newer), the rest check friendOp refusal codes of malformed frames and that the connection stays.
 */
class ContactPresenceIT extends DeployedRoost {

    static final Duration WITHIN = Duration.ofSeconds(20);

    User user() throws Exception {
        return TestUsers.register(baseUrl, "cp-");
    }

    /** The user's device of this type (id TYPE-1), signed in with the password as an app does, then logged in. */
    WsDevice device(User u, String type) throws Exception {
        return WsDevice.login(baseUrl, token(u, type), type, type + "-1");
    }

    /** The same device through the client library. */
    RoostDevice online(User u, String type, Recorder heard) throws Exception {
        return Devices.online(baseUrl, new User(u.id(), u.name(), token(u, type)), type, type + "-1", heard);
    }

    /** A token of the user's device of this type (id TYPE-1), from a sign-in with the password as an app does it. */
    String token(User u, String type) throws Exception {
        return TestUsers.login(baseUrl, u.name(), TestUsers.PASSWORD, type, type + "-1");
    }

    @Test
    void friendsOverFramesAndPresenceToFriendsWithGrowingVersions() throws Exception {
        User alice = user();
        User bob = user();
        WsDevice aliceWeb = device(alice, "web");
        WsDevice bobWeb = device(bob, "web");

        Social.befriend(alice, aliceWeb, bob, bobWeb, "hi Bob");
        assertTrue(aliceWeb.friendOp("\"op\":\"relation\",\"uid\":\"" + bob.id() + "\"").getBoolean("friends"));

        // A second device type of Alice's comes and goes: Bob hears both, versions growing.
        WsDevice alicePhone = device(alice, "android");
        JsonObject up = bobWeb.await("presence");
        assertEquals(alice.id(), up.getString("uid"));
        assertTrue(up.getBoolean("online"));
        assertEquals(2, up.getJsonArray("devices").size(), up.toString());
        alicePhone.send("{\"v\":1,\"type\":\"logout\"}");
        JsonObject down = bobWeb.await("presence");
        assertEquals(1, down.getJsonArray("devices").size(), down.toString());
        assertTrue(down.getJsonNumber("version").longValue() > up.getJsonNumber("version").longValue());
        aliceWeb.bye();
        JsonObject offline = bobWeb.await("presence");
        assertFalse(offline.getBoolean("online"));
        assertTrue(offline.getJsonNumber("version").longValue() > down.getJsonNumber("version").longValue());

        // Alice hides her presence from Bob: her next login tells him nothing.
        WsDevice aliceAgain = device(alice, "web");
        bobWeb.await("presence");
        assertEquals("ok", aliceAgain.friendOp("\"op\":\"permission\",\"uid\":\"" + bob.id() + "\",\"hidePresence\":true")
                .getString("result"));
        device(alice, "android").bye();
        Thread.sleep(2000);
        bobWeb.send("{\"v\":1,\"type\":\"heartbeat\"}");
        assertEquals("heartbeat", bobWeb.next().getString("type"), "no presence frame for Bob once Alice hides it");
        aliceAgain.bye();
        bobWeb.bye();
    }

    /**
     * What a device shows at its start: its friends' presence over REST, with the version of the
     * frames, so that a frame about the same change is not taken for a newer one; a friend who
     * hides presence shows offline; a stranger's presence is not listed; pages by id.
     */
    @Test
    void aDeviceReadsItsFriendsPresenceWithTheFramesVersions() throws Exception {
        User ann = user();
        User bob = user();
        User cat = user();
        User stranger = user();
        Social.befriend(baseUrl, ann, bob);
        Social.befriend(baseUrl, ann, cat);
        Recorder annHeard = new Recorder();
        try (RoostDevice annWeb = online(ann, "web", annHeard); RoostDevice catWeb = online(cat, "web", new Recorder());
                RoostDevice strangerWeb = online(stranger, "web", new Recorder());
                RoostDevice bobPhone = online(bob, "android", new Recorder())) {
            Presence told = annHeard.awaitPresence(bob.id(), Presence::online, WITHIN);
            annHeard.awaitPresence(cat.id(), Presence::online, WITHIN);
            JsonNode hidden = Devices.outcome(catWeb.request("friendOp", "permission",
                    RoostDevice.fields().put("uid", ann.id()).put("hidePresence", true)));
            assertEquals("ok", hidden.path("result").asText(), hidden.toString());

            List<JsonObject> contacts = contactsPresence(ann);
            assertEquals(List.of(bob.id(), cat.id()).stream().sorted(Comparator.comparingLong(Long::parseLong)).toList(),
                    contacts.stream().map(c -> c.getString("uid")).toList(), contacts.toString());
            JsonObject bobSeen = presenceOf(contacts, bob);
            assertTrue(bobSeen.getBoolean("online"), bobSeen.toString());
            assertEquals("android", bobSeen.getJsonArray("devices").getJsonObject(0).getString("deviceType"), bobSeen.toString());
            assertEquals(told.version(), bobSeen.getJsonNumber("version").longValue(), bobSeen.toString());
            JsonObject catSeen = presenceOf(contacts, cat);
            assertFalse(catSeen.getBoolean("online"), "Cat hides her presence from Ann: " + catSeen);
            assertEquals(0, catSeen.getJsonNumber("version").longValue(), catSeen.toString());

            JsonObject first = Http.okJson(http().get("api/v1/social/users/me/presence?limit=1", ann.auth()));
            assertEquals(contacts.get(0).getString("uid"), first.getString("next"), first.toString());
            JsonObject second = Http.okJson(http().get("api/v1/social/users/me/presence?limit=1&after=" + first.getString("next"), ann.auth()));
            assertEquals(contacts.get(1), second.getJsonArray("items").getJsonObject(0));
            assertTrue(second.isNull("next"), second.toString());

            bobPhone.close(); // closing twice (the try's) does nothing
            Presence gone = annHeard.awaitPresence(bob.id(), p -> !p.online(), WITHIN);
            JsonObject bobNow = presenceOf(contactsPresence(ann), bob);
            assertFalse(bobNow.getBoolean("online"), bobNow.toString());
            assertEquals(gone.version(), bobNow.getJsonNumber("version").longValue(), bobNow.toString());
            assertEquals(400, http().get("api/v1/social/users/me/presence?limit=0", ann.auth()).statusCode());
        }
    }

    List<JsonObject> contactsPresence(User u) {
        return Http.okJson(http().get("api/v1/social/users/me/presence", u.auth())).getJsonArray("items").getValuesAs(JsonObject.class);
    }

    static JsonObject presenceOf(List<JsonObject> contacts, User contact) {
        return contacts.stream().filter(c -> c.getString("uid").equals(contact.id())).findFirst()
                .orElseThrow(() -> new AssertionError(contact.id() + " not in " + contacts));
    }

    @Test
    void badFriendOpsFailWithACodeAndKeepTheConnection() throws Exception {
        User carol = user();
        WsDevice d = device(carol, "desktop");
        JsonObject unknown = d.friendOp("\"op\":\"poke\"");
        assertEquals("fail", unknown.getString("result"));
        assertEquals("unknown-op", unknown.getString("code"));
        assertEquals("wrong-social-mode", d.friendOp("\"op\":\"follow\",\"uid\":\"1\"").getString("code"));
        assertEquals("invalid-id", d.friendOp("\"op\":\"block\",\"uid\":\"x\"").getString("code"));
        assertEquals("self-relation", d.friendOp("\"op\":\"request\",\"uid\":\"" + carol.id() + "\"").getString("code"));
        d.send("{\"v\":1,\"type\":\"heartbeat\"}");
        d.expect("heartbeat");
        d.bye();
    }

    /** Over REST the body's validation refuses such a decision first (validation-failed, SocialApiIT); a frame reaches the service. */
    @Test
    void anAnswerWithAnUnknownDecisionFailsAndTheRequestStaysPending() throws Exception {
        User eve = user();
        User finn = user();
        WsDevice eveWeb = device(eve, "web");
        String id = Social.ask(baseUrl, finn, eve, "hi Eve");
        JsonObject refused = eveWeb.friendOp("\"op\":\"answer\",\"requestId\":\"" + id + "\",\"decision\":\"maybe\"");
        assertEquals("fail", refused.getString("result"), refused.toString());
        assertEquals("invalid-decision", refused.getString("code"), refused.toString());

        JsonObject pending = eveWeb.friendOp("\"op\":\"requests\"");
        assertEquals(List.of(id + " PENDING"), pending.getJsonArray("items").getValuesAs(JsonObject.class).stream()
                .map(r -> r.getString("id") + " " + r.getString("status")).toList(), pending.toString());
        assertEquals("ACCEPTED", eveWeb.friendOp("\"op\":\"answer\",\"requestId\":\"" + id + "\",\"decision\":\"accept\"")
                .getString("status"), "the connection stays, and the request can still be answered");
        eveWeb.bye();
    }

    @Test
    void listsOverFramesArePagedLikeRest() throws Exception {
        User dora = user();
        User[] askers = {user(), user(), user()};
        WsDevice d = device(dora, "desktop");
        for (User a : askers) {
            WsDevice ad = device(a, "pad");
            assertEquals("ok", ad.friendOp("\"op\":\"request\",\"uid\":\"" + dora.id() + "\"").getString("result"));
            ad.bye();
        }
        JsonObject incoming = d.friendOp("\"op\":\"requests\",\"limit\":2");
        assertEquals("ok", incoming.getString("result"), incoming.toString());
        assertEquals(2, incoming.getJsonArray("items").size());
        JsonObject rest = d.friendOp("\"op\":\"requests\",\"limit\":2,\"before\":\"" + incoming.getString("next") + "\"");
        assertEquals(1, rest.getJsonArray("items").size());
        assertTrue(rest.isNull("next"));
        for (JsonObject r : incoming.getJsonArray("items").getValuesAs(JsonObject.class)) {
            assertEquals(dora.id(), r.getString("to"));
            d.friendOp("\"op\":\"answer\",\"requestId\":\"" + r.getString("id") + "\",\"decision\":\"accept\"");
        }
        JsonObject friends = d.friendOp("\"op\":\"friends\",\"limit\":1");
        assertEquals(1, friends.getJsonArray("items").size());
        JsonObject more = d.friendOp("\"op\":\"friends\",\"limit\":5,\"after\":\"" + friends.getString("next") + "\"");
        assertEquals(1, more.getJsonArray("items").size(), "two friends accepted, one per page");
        assertEquals(2, d.friendOp("\"op\":\"followers\"").getJsonArray("items").size());
        assertEquals(2, d.friendOp("\"op\":\"counts\"").getInt("following"));
        assertEquals("invalid-limit", d.friendOp("\"op\":\"friends\",\"limit\":0").getString("code"));
        assertEquals("invalid-limit", d.friendOp("\"op\":\"friends\",\"limit\":\"x\"").getString("code"));
        assertEquals("invalid-direction", d.friendOp("\"op\":\"requests\",\"direction\":\"sideways\"").getString("code"));
        assertEquals("invalid-id", d.friendOp("\"op\":\"blocked\",\"after\":\"x\"").getString("code"));
        d.bye();
    }
}
