package io.roost.it.group;

import static io.roost.it.Http.json;
import static io.roost.it.Http.ok;
import static io.roost.it.Http.okJson;
import static io.roost.it.Problems.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.Database;
import io.roost.it.DeployedRoost;
import io.roost.it.Http;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import io.roost.it.WsDevice;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * Hidden groups as an outsider tries them: every operation, over REST and as a {@code groupOp}
 * frame, answers a non-member exactly as it answers an id that names nothing (docs/api.md, "Hidden
 * groups"), and changes nothing; admin and service callers read them; invite links let people in.
 */
class HiddenGroupIT extends DeployedRoost {

    private static final String PROBLEM = "urn:roost:problem:";

    User user() throws Exception {
        return TestUsers.registerWithoutPassword(baseUrl, "hg-", "pad", "p");
    }

    /** An answer as a client reads it: REST's status, problem type and detail, or a groupOpRet's code and message. */
    record Answer(String status, String code, String detail) {

        static Answer of(HttpResponse<String> r) {
            boolean problem = r.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json");
            JsonObject body = problem ? json(r) : null;
            return problem ? new Answer(Integer.toString(r.statusCode()), body.getString("type").replace(PROBLEM, ""),
                    body.getString("detail", "")) : new Answer(Integer.toString(r.statusCode()), "(no problem)", r.body());
        }

        static Answer of(JsonObject ret) {
            return new Answer("frame", ret.getString("result").equals("ok") ? "(ok)" : ret.getString("code"),
                    ret.getString("message", ret.toString()));
        }

        /** The same answer with {@code id} in its detail replaced by a placeholder, to compare answers about two ids. */
        Answer about(String id) {
            return new Answer(status, code, detail.replace(id, "<id>"));
        }
    }

    /** One operation on an id (a group's or a request's), as one caller sends it. */
    @FunctionalInterface
    interface Call {
        Answer on(String id) throws Exception;
    }

    /** An id that names nothing: a random one (ids are snowflakes; a random 62-bit number is nobody's). */
    static String unknownId() {
        return Long.toString(ThreadLocalRandom.current().nextLong(1L << 40, Long.MAX_VALUE));
    }

    /**
     * The one check of this class, for REST and frames alike: each call on {@code realId} answers
     * what it answers for an id that names nothing (status, problem type or code, and the detail with
     * the id aside), and that is a 404 {@code not-found} "No {@code noun} <id>".
     */
    static void assertEveryCallAnswersAsUnknown(String where, Map<String, Call> calls, String realId, String noun) throws Exception {
        for (Map.Entry<String, Call> call : calls.entrySet()) {
            String unknown = unknownId();
            Answer none = call.getValue().on(unknown).about(unknown);
            Answer hidden = call.getValue().on(realId).about(realId);
            String what = where + ": " + call.getKey();
            assertEquals(none, hidden, what + " answers the outsider as for an id that names nothing");
            assertEquals("not-found", none.code(), what + ": " + none);
            assertTrue(none.status().equals("404") || none.status().equals("frame"), what + ": " + none);
            assertEquals("No " + noun + " <id>", none.detail(), what);
        }
    }

    /** Every REST operation on a group id, as {@code caller} sends it; {@code member} and {@code link} are real ones of the group. */
    Map<String, Call> restOps(User caller, String member, String link) {
        String a = caller.auth();
        Http h = http();
        Map<String, Call> ops = new LinkedHashMap<>();
        ops.put("GET /groups/{id}", id -> Answer.of(h.get("api/v1/groups/" + id, a)));
        ops.put("PATCH /groups/{id} notice", id -> Answer.of(h.patch("api/v1/groups/" + id, a, "{\"notice\":\"mine now\"}")));
        ops.put("PATCH /groups/{id} visibility", id -> Answer.of(h.patch("api/v1/groups/" + id, a, "{\"visibility\":\"public\"}")));
        ops.put("DELETE /groups/{id}", id -> Answer.of(h.delete("api/v1/groups/" + id, a)));
        ops.put("GET /groups/{id}/members", id -> Answer.of(h.get("api/v1/groups/" + id + "/members", a)));
        ops.put("POST /groups/{id}/join", id -> Answer.of(h.post("api/v1/groups/" + id + "/join", a, "{\"message\":\"hi\"}")));
        ops.put("GET /groups/{id}/requests", id -> Answer.of(h.get("api/v1/groups/" + id + "/requests", a)));
        ops.put("POST /groups/{id}/invitations", id -> Answer.of(h.post("api/v1/groups/" + id + "/invitations", a,
                "{\"uid\":\"" + caller.id() + "\"}")));
        ops.put("DELETE /groups/{id}/members/{uid}", id -> Answer.of(h.delete("api/v1/groups/" + id + "/members/" + member, a)));
        ops.put("DELETE /groups/{id}/members/me", id -> Answer.of(h.delete("api/v1/groups/" + id + "/members/me", a)));
        ops.put("PATCH /groups/{id}/members/me", id -> Answer.of(h.patch("api/v1/groups/" + id + "/members/me", a, "{\"nick\":\"x\"}")));
        ops.put("PUT /groups/{id}/admins/{uid}", id -> Answer.of(h.put("api/v1/groups/" + id + "/admins/" + member, a, "")));
        ops.put("DELETE /groups/{id}/admins/{uid}", id -> Answer.of(h.delete("api/v1/groups/" + id + "/admins/" + member, a)));
        ops.put("PUT /groups/{id}/owner/{uid}", id -> Answer.of(h.put("api/v1/groups/" + id + "/owner/" + member, a, "")));
        ops.put("POST /groups/{id}/invite-links", id -> Answer.of(h.post("api/v1/groups/" + id + "/invite-links", a, "{}")));
        ops.put("DELETE /groups/{id}/invite-links/{linkId}", id -> Answer.of(h.delete("api/v1/groups/" + id + "/invite-links/" + link, a)));
        ops.put("PUT /groups/{id}/mutes/{uid}", id -> Answer.of(h.put("api/v1/groups/" + id + "/mutes/" + member, a, "{}")));
        ops.put("DELETE /groups/{id}/mutes/{uid}", id -> Answer.of(h.delete("api/v1/groups/" + id + "/mutes/" + member, a)));
        // the group's messages: sending, history, catch-up, the reader's own state, receipts, recall and delete
        String chat = "api/v1/chat/groups/";
        ops.put("POST /chat/groups/{id}/messages", id -> Answer.of(h.post(chat + id + "/messages", a,
                "{\"sendId\":\"" + io.roost.it.chat.Chats.sid() + "\",\"type\":\"text\",\"text\":\"hi\"}")));
        ops.put("GET /chat/groups/{id}/messages", id -> Answer.of(h.get(chat + id + "/messages", a)));
        ops.put("GET /chat/groups/{id}/sync", id -> Answer.of(h.get(chat + id + "/sync?after=0", a)));
        ops.put("GET /chat/groups/{id}/members/me/state", id -> Answer.of(h.get(chat + id + "/members/me/state", a)));
        ops.put("POST /chat/groups/{id}/members/me/read", id -> Answer.of(h.post(chat + id + "/members/me/read", a, "{\"readSeq\":1}")));
        ops.put("PUT /chat/groups/{id}/members/me/mute", id -> Answer.of(h.put(chat + id + "/members/me/mute", a, "{\"muted\":true}")));
        ops.put("GET /chat/groups/{id}/messages/1/readers", id -> Answer.of(h.get(chat + id + "/messages/1/readers", a)));
        ops.put("POST /chat/groups/{id}/messages/1/recall", id -> Answer.of(h.post(chat + id + "/messages/1/recall", a, "{}")));
        ops.put("DELETE /chat/groups/{id}/messages/1", id -> Answer.of(h.delete(chat + id + "/messages/1", a)));
        return ops;
    }

    /** Every groupOp on a group id, as the device's user sends it. */
    static Map<String, Call> frameOps(WsDevice d, String member) {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("info", "");
        fields.put("setInfo", ",\"notice\":\"mine now\"");
        fields.put("dissolve", "");
        fields.put("members", "");
        fields.put("join", ",\"message\":\"hi\"");
        fields.put("requests", "");
        fields.put("invite", ",\"uid\":\"" + member + "\"");
        fields.put("kick", ",\"uid\":\"" + member + "\"");
        fields.put("quit", "");
        fields.put("setMyInfo", ",\"nick\":\"x\"");
        fields.put("addAdmin", ",\"uid\":\"" + member + "\"");
        fields.put("removeAdmin", ",\"uid\":\"" + member + "\"");
        fields.put("transferOwner", ",\"uid\":\"" + member + "\"");
        fields.put("mute", ",\"uid\":\"" + member + "\"");
        fields.put("unmute", ",\"uid\":\"" + member + "\"");
        Map<String, Call> ops = new LinkedHashMap<>();
        fields.forEach((op, more) -> ops.put("groupOp " + op,
                id -> Answer.of(d.op("groupOp", "\"op\":\"" + op + "\",\"groupId\":\"" + id + "\"" + more))));
        // the group's messages, as chatOp frames naming the group
        Map<String, String> chat = new LinkedHashMap<>();
        chat.put("send", ",\"sendId\":\"" + io.roost.it.chat.Chats.sid() + "\",\"msgType\":\"text\",\"body\":{\"text\":\"hi\"}");
        chat.put("messages", "");
        chat.put("sync", ",\"after\":0");
        chat.put("state", "");
        chat.put("read", ",\"readSeq\":1");
        chat.put("mute", ",\"muted\":true");
        chat.put("readers", ",\"msgSeq\":1");
        chat.put("recall", ",\"msgSeq\":1");
        chat.put("delete", ",\"msgSeq\":1");
        chat.forEach((op, more) -> ops.put("chatOp " + op,
                id -> Answer.of(d.op("chatOp", "\"op\":\"" + op + "\",\"group\":\"" + id + "\"" + more))));
        return ops;
    }

    /** Answering a request (a join request or an invitation) by its id, over REST and as a frame. */
    Map<String, Call> answerOps(User caller, WsDevice d) {
        Map<String, Call> ops = new LinkedHashMap<>();
        ops.put("POST /groups/requests/{rid}/answer", rid -> Answer.of(http().post("api/v1/groups/requests/" + rid + "/answer",
                caller.auth(), "{\"decision\":\"accept\"}")));
        ops.put("groupOp answer", rid -> Answer.of(d.op("groupOp", "\"op\":\"answer\",\"requestId\":\"" + rid + "\",\"decision\":\"accept\"")));
        return ops;
    }

    /** A hidden group of the owner's with one W member, an invite link, a pending join request and a pending invitation. */
    record Hidden(String id, User member, String link, String joinRequest, String invitation) {
    }

    Hidden hidden(User owner, String type, String joinPolicy, boolean dissolved) throws Exception {
        // public and approval at first, so that someone files a join request; then hidden with its own policy
        String id = okJson(http().post("api/v1/groups", owner.auth(), "{\"name\":\"Hideout\",\"type\":\"" + type
                + "\",\"joinPolicy\":\"approval\"}")).getString("id");
        String joinRequest = okJson(http().post("api/v1/groups/" + id + "/join", user().auth(), "{}"))
                .getJsonObject("request").getString("id");
        ok(http().patch("api/v1/groups/" + id, owner.auth(), "{\"visibility\":\"hidden\",\"joinPolicy\":\"" + joinPolicy + "\"}"));
        User member = user();
        String invited = okJson(http().post("api/v1/groups/" + id + "/invitations", owner.auth(), "{\"uid\":\"" + member.id() + "\"}"))
                .getString("id");
        ok(http().post("api/v1/groups/requests/" + invited + "/answer", member.auth(), "{\"decision\":\"accept\"}"));
        String invitation = okJson(http().post("api/v1/groups/" + id + "/invitations", owner.auth(), "{\"uid\":\"" + user().id() + "\"}"))
                .getString("id");
        String link = okJson(http().post("api/v1/groups/" + id + "/invite-links", owner.auth(), "{}")).getString("id");
        if (dissolved) {
            ok(http().delete("api/v1/groups/" + id, owner.auth()));
        }
        return new Hidden(id, member, link, joinRequest, invitation);
    }

    /** The group's state an outsider's call could change: its audit log, members, pending requests and live links. */
    static String state(String groupId) throws Exception {
        try (Connection c = Database.connect(); PreparedStatement ps = c.prepareStatement("""
                SELECT (SELECT string_agg(event_type, ',' ORDER BY id) FROM group_event WHERE group_id = g.id),
                       (SELECT string_agg(uid || ':' || role || ':' || coalesce(nick, ''), ',' ORDER BY uid) FROM group_member WHERE group_id = g.id),
                       (SELECT string_agg(id || ':' || status, ',' ORDER BY id) FROM group_request WHERE group_id = g.id),
                       (SELECT count(*) FROM group_invite_link WHERE group_id = g.id AND revoked_at IS NULL),
                       g.name, g.notice, g.visibility, g.join_policy, g.status, g.owner_id, g.member_count, g.version
                FROM grp g WHERE g.id = ?""")) {
            ps.setLong(1, Long.parseLong(groupId));
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next(), "group " + groupId);
                StringBuilder sb = new StringBuilder();
                for (int i = 1; i <= 12; i++) {
                    sb.append(rs.getString(i)).append('|');
                }
                return sb.toString();
            }
        }
    }

    @Test
    void everyOperationAnswersAnOutsiderAsForAGroupThatDoesNotExist() throws Exception {
        User owner = user();
        User outsider = user();
        WsDevice pad = WsDevice.login(baseUrl, outsider.token(), "pad", "p");
        Map<String, Hidden> groups = new LinkedHashMap<>();
        groups.put("hidden open chat", hidden(owner, "chat", "open", false));
        groups.put("hidden approval channel", hidden(owner, "channel", "approval", false));
        groups.put("hidden invite-only chat", hidden(owner, "chat", "invite-only", false));
        groups.put("hidden approval chat, dissolved", hidden(owner, "chat", "approval", true));
        for (Map.Entry<String, Hidden> e : groups.entrySet()) {
            Hidden g = e.getValue();
            String before = state(g.id());
            assertEveryCallAnswersAsUnknown(e.getKey() + ", REST", restOps(outsider, g.member().id(), g.link()), g.id(), "group");
            assertEveryCallAnswersAsUnknown(e.getKey() + ", frame", frameOps(pad, g.member().id()), g.id(), "group");
            Map<String, Call> answers = answerOps(outsider, pad);
            assertEveryCallAnswersAsUnknown(e.getKey() + ", its join request", answers, g.joinRequest(), "request");
            assertEveryCallAnswersAsUnknown(e.getKey() + ", another's invitation", answers, g.invitation(), "request");
            assertEquals(before, state(g.id()), e.getKey() + ": the outsider's calls changed nothing");
        }
        // The same calls by a member are answered as they always were: the rule is about outsiders.
        Hidden open = groups.get("hidden open chat");
        assertProblem(http().post("api/v1/groups/" + open.id() + "/join", open.member().auth(), "{}"), 409, "already-member");
        assertProblem(http().patch("api/v1/groups/" + open.id(), open.member().auth(), "{\"notice\":\"x\"}"), 403, "forbidden");
        assertProblem(http().patch("api/v1/groups/" + groups.get("hidden approval chat, dissolved").id(),
                owner.auth(), "{\"notice\":\"x\"}"), 409, "group-dissolved");
        pad.bye();
    }

    @Test
    void adminAndServiceCallersReadAHiddenGroupAndItsMembers() throws Exception {
        User owner = user();
        Hidden g = hidden(owner, "chat", "invite-only", false);
        User service = TestUsers.service(baseUrl, "hg-svc-");
        for (String caller : List.of(service.auth(), Http.ADMIN)) {
            assertEquals("hidden", okJson(http().get("api/v1/groups/" + g.id(), caller)).getString("visibility"));
            List<String> members = okJson(http().get("api/v1/groups/" + g.id() + "/members", caller)).getJsonArray("items").stream()
                    .map(m -> m.asJsonObject().getString("uid")).toList();
            assertEquals(List.of(owner.id(), g.member().id()).stream().sorted().toList(), members.stream().sorted().toList());
            assertProblem(http().get("api/v1/groups/" + unknownId() + "/members", caller), 404, "not-found");
            // reading is all: a change needs a role in the group, and to a non-member the group is still unknown
            assertProblem(http().post("api/v1/groups/" + g.id() + "/join", caller, "{}"), 404, "not-found");
        }
    }

    @Test
    void anInviteLinkAdmitsWhoeverHoldsItUntilItIsRevoked() throws Exception {
        User owner = user();
        User admin = user();
        User reader = user();
        String channel = okJson(http().post("api/v1/groups", owner.auth(),
                "{\"name\":\"Insiders\",\"type\":\"channel\",\"visibility\":\"hidden\",\"joinPolicy\":\"invite-only\"}")).getString("id");
        String invited = okJson(http().post("api/v1/groups/" + channel + "/invitations", owner.auth(), "{\"uid\":\"" + admin.id() + "\"}"))
                .getString("id");
        ok(http().post("api/v1/groups/requests/" + invited + "/answer", admin.auth(), "{\"decision\":\"accept\"}"));
        ok(http().put("api/v1/groups/" + channel + "/admins/" + admin.id(), owner.auth(), ""));

        var created = http().post("api/v1/groups/" + channel + "/invite-links", admin.auth(), "{\"ttlSeconds\":3600}");
        assertEquals(201, created.statusCode(), created.body());
        JsonObject link = json(created);
        String token = link.getString("token");
        assertTrue(token.startsWith("rgl_") && token.length() > 40, token);
        assertEquals(channel, link.getString("groupId"));
        assertEquals(admin.id(), link.getString("createdBy"));
        assertTrue(link.getString("expiresAt").compareTo(link.getString("createdAt")) > 0, link.toString());
        assertTokenStoredOnlyHashed(link.getString("id"), token);

        JsonObject joined = okJson(http().post("api/v1/groups/join-by-link", reader.auth(), "{\"token\":\"" + token + "\"}"));
        assertEquals(channel, joined.getString("id"));
        assertEquals(3, joined.getInt("memberCount"));
        String role = okJson(http().get("api/v1/groups/" + channel + "/members", reader.auth())).getJsonArray("items").stream()
                .map(JsonObject.class::cast).filter(m -> m.getString("uid").equals(reader.id())).findFirst().orElseThrow().getString("role");
        assertEquals("R", role, "a channel's member by link reads, as every channel member");
        assertProblem(http().post("api/v1/groups/join-by-link", reader.auth(), "{\"token\":\"" + token + "\"}"), 409, "already-member");
        // Only admins make or revoke links: a member may not, an outsider does not even learn the group exists.
        assertProblem(http().post("api/v1/groups/" + channel + "/invite-links", reader.auth(), "{}"), 403, "forbidden");
        assertProblem(http().delete("api/v1/groups/" + channel + "/invite-links/" + link.getString("id"), reader.auth()), 403, "forbidden");
        assertProblem(http().delete("api/v1/groups/" + channel + "/invite-links/" + unknownId(), owner.auth()), 404, "not-found");

        assertEquals(204, http().delete("api/v1/groups/" + channel + "/invite-links/" + link.getString("id"), owner.auth()).statusCode());
        assertEquals(204, http().delete("api/v1/groups/" + channel + "/invite-links/" + link.getString("id"), owner.auth()).statusCode(),
                "revoking again changes nothing");
        User late = user();
        Answer revoked = Answer.of(http().post("api/v1/groups/join-by-link", late.auth(), "{\"token\":\"" + token + "\"}"));
        Answer garbage = Answer.of(http().post("api/v1/groups/join-by-link", late.auth(), "{\"token\":\"rgl_nothing\"}"));
        assertEquals(new Answer("404", "not-found", garbage.detail()), revoked, "a revoked link is an unknown one");
        assertFalse(revoked.detail().contains(channel), "the answer names no group: " + revoked);
        assertEquals(List.of("created", "invited", "joined", "admin_added", "invite_link_created", "joined",
                "invite_link_revoked"), GroupApiIT.auditLog(channel), "one revoke recorded, the refusals nothing");
    }

    @Test
    void anExpiredInviteLinkAdmitsNobody() throws Exception {
        User owner = user();
        String group = okJson(http().post("api/v1/groups", owner.auth(),
                "{\"name\":\"Brief\",\"type\":\"chat\",\"visibility\":\"hidden\",\"joinPolicy\":\"open\"}")).getString("id");
        assertProblem(http().post("api/v1/groups/" + group + "/invite-links", owner.auth(), "{\"ttlSeconds\":59}"), 400, "validation-failed");
        assertProblem(http().post("api/v1/groups/" + group + "/invite-links", owner.auth(), "{\"ttlSeconds\":2592001}"), 400,
                "validation-failed");
        JsonObject link = okJson(http().post("api/v1/groups/" + group + "/invite-links", owner.auth(), "{\"ttlSeconds\":60}"));
        try (Connection c = Database.connect(); PreparedStatement ps = c.prepareStatement(
                "UPDATE group_invite_link SET expires_at = now() - interval '1 second' WHERE id = ?")) {
            ps.setLong(1, Long.parseLong(link.getString("id")));
            assertEquals(1, ps.executeUpdate());
        }
        User late = user();
        Answer expired = Answer.of(http().post("api/v1/groups/join-by-link", late.auth(), "{\"token\":\"" + link.getString("token") + "\"}"));
        Answer garbage = Answer.of(http().post("api/v1/groups/join-by-link", late.auth(), "{\"token\":\"rgl_nothing\"}"));
        assertEquals(new Answer("404", "not-found", garbage.detail()), expired, "an expired link is an unknown one");
        assertEquals(1, okJson(http().get("api/v1/groups/" + group, owner.auth())).getInt("memberCount"));
    }

    /** The table holds the token's SHA-256 and the token nowhere. */
    static void assertTokenStoredOnlyHashed(String linkId, String token) throws Exception {
        try (Connection c = Database.connect(); PreparedStatement ps = c.prepareStatement("""
                SELECT token_hash = sha256(convert_to(?, 'UTF8')), position(? in l::text) FROM group_invite_link l WHERE id = ?""")) {
            ps.setString(1, token);
            ps.setString(2, token.substring(4));
            ps.setLong(3, Long.parseLong(linkId));
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                assertTrue(rs.getBoolean(1), "token_hash is the token's SHA-256");
                assertEquals(0, rs.getInt(2), "the token itself is not stored");
            }
        }
    }
}
