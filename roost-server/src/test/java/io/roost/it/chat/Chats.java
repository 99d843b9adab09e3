package io.roost.it.chat;

import static io.roost.it.Http.json;
import static io.roost.it.Http.okJson;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.roost.it.Http;
import io.roost.it.LogSecrets;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import java.net.URL;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** The chat calls the chat ITs share: users, sends and recalls over REST, conversations and history. */
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

    /** A message of {@code type} naming stored file {@code mediaId} over REST; its answer ({@code msgId}, {@code seq}). */
    public JsonObject sendMedia(User from, User to, String type, String mediaId) {
        var r = send(from.auth(), "\"peer\":\"" + to.id() + "\",\"sendId\":\"" + sid() + "\",\"type\":\"" + type
                + "\",\"media\":{\"id\":\"" + mediaId + "\"}");
        assertEquals(201, r.statusCode(), r.body());
        return json(r);
    }

    /** The response to a text message over REST: 201 stored, 200 a resend answered with the stored answer. */
    public HttpResponse<String> postText(User from, User to, String sendId, String text) {
        LogSecrets.record(text);
        return send(from.auth(), "\"peer\":\"" + to.id() + "\",\"sendId\":\"" + sendId + "\",\"type\":\"text\",\"text\":\"" + text + "\"");
    }

    /**
     * The response to a REST send of these JSON fields, as they are (a back end's send naming
     * {@code from}, a system message, or a refusal's bad input).
     */
    public HttpResponse<String> send(String authorization, String fields) {
        return http.post("api/v1/chat/messages", authorization, "{" + fields + "}");
    }

    /** A page of the owner's history with {@code peer}, read by the owner. */
    public JsonObject messages(User owner, User peer, String query) {
        return page("api/v1/chat/users/me/conversations/" + peer.id() + "/messages" + query, owner.auth());
    }

    /** A page of the owner's history with {@code peer}, read with this authorization (the owner's, an operator's, a back end's). */
    public JsonObject messages(User owner, String authorization, User peer, String query) {
        return page("api/v1/chat/users/" + owner.id() + "/conversations/" + peer.id() + "/messages" + query, authorization);
    }

    /** The owner's history with {@code peer} as the owner reads it, up to 100 messages (the tests' conversations are shorter). */
    public JsonArray items(User owner, User peer) {
        return messages(owner, peer, "?limit=100").getJsonArray("items");
    }

    private JsonObject page(String path, String authorization) {
        return okJson(http.get(path, authorization));
    }

    /** The response to a recall of the owner's message {@code seq} with {@code peer}, made with this authorization. */
    public HttpResponse<String> recall(User owner, String authorization, User peer, long seq) {
        return http.post("api/v1/chat/users/" + owner.id() + "/conversations/" + peer.id() + "/messages/" + seq + "/recall",
                authorization, "");
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
        JsonArray items = okJson(http.get("api/v1/chat/users/me/conversations?limit=100", owner.auth())).getJsonArray("items");
        return items.stream().map(JsonObject.class::cast).filter(c -> c.getString("peer").equals(peer.id())).findFirst().orElse(null);
    }

    /** The owner's conversation with {@code peer}, which must exist. */
    public JsonObject existingConversation(User owner, User peer) {
        JsonObject c = conversation(owner, peer);
        assertNotNull(c, "no conversation of " + owner.id() + " with " + peer.id());
        return c;
    }
}
