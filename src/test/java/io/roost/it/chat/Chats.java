package io.roost.it.chat;

import static io.roost.it.Http.json;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.roost.it.Http;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.net.URL;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** The chat calls the chat ITs share: users, sends over REST, conversations and history. */
public final class Chats {

    private final URL base;
    private final Http http;

    public Chats(URL base) {
        this.base = base;
        this.http = new Http(base);
    }

    /** A user whose token is bound to the web device "w". */
    public User user() throws Exception {
        return TestUsers.registerWithoutPassword(base, "ch-", "web", "w");
    }

    /** A user whose token any device may log in with (for tests with several devices of one user). */
    public User roaming() throws Exception {
        return TestUsers.create(base, "ch-");
    }

    public static String sid() {
        return "s-" + UUID.randomUUID();
    }

    /** The fields of a device's {@code chatOp send} of a text message to {@code peer}, with a fresh sendId. */
    public static String textSend(User peer, String text) {
        return "\"op\":\"send\",\"peer\":\"" + peer.id() + "\",\"sendId\":\"" + sid()
                + "\",\"msgType\":\"text\",\"body\":{\"text\":\"" + text + "\"}";
    }

    /** A text message over REST; its answer ({@code msgId}, {@code seq}). */
    public JsonObject sendText(User from, User to, String text) {
        return sendText(from, to, sid(), text);
    }

    /** A text message over REST with this sendId; its answer ({@code msgId}, {@code seq}). */
    public JsonObject sendText(User from, User to, String sendId, String text) {
        var r = postText(from, to, sendId, text);
        assertEquals(201, r.statusCode(), r.body());
        return json(r);
    }

    /** The response to a text message over REST: 201 stored, 200 a resend answered with the stored answer. */
    public HttpResponse<String> postText(User from, User to, String sendId, String text) {
        return http.post("api/v1/chat/messages", from.auth(),
                "{\"peer\":\"" + to.id() + "\",\"sendId\":\"" + sendId + "\",\"type\":\"text\",\"text\":\"" + text + "\"}");
    }

    /** A page of the owner's history with {@code peer}. */
    public JsonObject messages(User owner, User peer, String query) {
        var r = http.get("api/v1/chat/users/me/conversations/" + peer.id() + "/messages" + query, owner.auth());
        assertEquals(200, r.statusCode(), r.body());
        return json(r);
    }

    /** The owner's messages with {@code peer} after seq {@code after}, in seq order: every page of them. */
    public List<JsonObject> messagesAfter(User owner, User peer, long after) {
        List<JsonObject> all = new ArrayList<>();
        while (true) {
            JsonObject page = messages(owner, peer, "?after=" + after + "&limit=100");
            page.getJsonArray("items").forEach(m -> all.add(m.asJsonObject()));
            if (page.isNull("next")) {
                return all;
            }
            after = Long.parseLong(page.getString("next"));
        }
    }

    /** The owner's conversation with {@code peer}, or null. */
    public JsonObject conversation(User owner, User peer) {
        var r = http.get("api/v1/chat/users/me/conversations?limit=100", owner.auth());
        assertEquals(200, r.statusCode(), r.body());
        JsonArray items = json(r).getJsonArray("items");
        return items.stream().map(JsonObject.class::cast).filter(c -> c.getString("peer").equals(peer.id())).findFirst().orElse(null);
    }
}
