package io.roost.it.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.it.DeployedRoost;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import io.roost.it.WsDevice;
import jakarta.json.JsonObject;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** groupOp frames over real WebSockets: the same operations as REST, and join requests forwarded to online admins. */
class GroupFramesIT extends DeployedRoost {

    User user() throws Exception {
        return TestUsers.registerWithoutPassword(baseUrl, "gf-", "pad", "p");
    }

    static JsonObject op(WsDevice d, String fields) throws Exception {
        return d.op("groupOp", fields);
    }

    static JsonObject awaitOp(WsDevice d, String op) throws Exception {
        while (true) {
            JsonObject frame = d.await("groupOp");
            if (frame.getString("op").equals(op)) {
                return frame;
            }
        }
    }

    @Test
    void anApprovalGroupOverFrames() throws Exception {
        User owner = user();
        User joiner = user();
        WsDevice ownerPad = WsDevice.login(baseUrl, owner.token(), "pad", "p");
        WsDevice joinerPad = WsDevice.login(baseUrl, joiner.token(), "pad", "p");
        JsonObject created = op(ownerPad, "\"op\":\"create\",\"name\":\"Frames club\",\"groupType\":\"chat\",\"joinPolicy\":\"approval\"");
        assertEquals("ok", created.getString("result"), created.toString());
        String groupId = created.getString("groupId");

        JsonObject asked = op(joinerPad, "\"op\":\"join\",\"groupId\":\"" + groupId + "\",\"message\":\"me too\"");
        assertEquals("ok", asked.getString("result"), asked.toString());
        assertTrue(!asked.getBoolean("member"));
        JsonObject forwarded = awaitOp(ownerPad, "join_requested"); // the only admin, and online
        assertEquals("me too", forwarded.getString("message"));

        JsonObject answered = op(ownerPad, "\"op\":\"answer\",\"requestId\":\"" + forwarded.getString("requestId")
                + "\",\"decision\":\"accept\"");
        assertEquals("ACCEPTED", answered.getString("status"), answered.toString());
        awaitOp(joinerPad, "join_accepted"); // a "joined" announcement to the chat may come first

        JsonObject refused = op(joinerPad, "\"op\":\"dissolve\",\"groupId\":\"" + groupId + "\"");
        assertEquals("fail", refused.getString("result"));
        assertEquals("forbidden", refused.getString("code"));
        assertEquals("unknown-op", op(joinerPad, "\"op\":\"teleport\"").getString("code"));
        assertEquals("invalid-id", op(joinerPad, "\"op\":\"quit\",\"groupId\":\"x\"").getString("code"));
        assertEquals("ok", op(joinerPad, "\"op\":\"quit\",\"groupId\":\"" + groupId + "\"").getString("result"));
        ownerPad.bye();
        joinerPad.bye();
    }

    @Test
    void groupReadsOverFrames() throws Exception {
        User owner = user();
        User member = user();
        User outsider = user();
        WsDevice ownerPad = WsDevice.login(baseUrl, owner.token(), "pad", "p");
        WsDevice memberPad = WsDevice.login(baseUrl, member.token(), "pad", "p");
        WsDevice outsiderPad = WsDevice.login(baseUrl, outsider.token(), "pad", "p");
        String name = "Readers " + UUID.randomUUID().toString().substring(0, 8);
        String groupId = op(ownerPad, "\"op\":\"create\",\"name\":\"" + name + "\",\"groupType\":\"chat\"").getString("groupId");
        assertEquals("ok", op(memberPad, "\"op\":\"join\",\"groupId\":\"" + groupId + "\"").getString("result"));

        JsonObject info = op(memberPad, "\"op\":\"info\",\"groupId\":\"" + groupId + "\"");
        assertEquals(name, info.getJsonObject("group").getString("name"), info.toString());
        assertEquals(2, info.getJsonObject("group").getInt("memberCount"));
        JsonObject first = op(memberPad, "\"op\":\"members\",\"groupId\":\"" + groupId + "\",\"limit\":1");
        assertEquals(1, first.getJsonArray("items").size(), first.toString());
        JsonObject second = op(memberPad, "\"op\":\"members\",\"groupId\":\"" + groupId + "\",\"limit\":1,\"after\":\""
                + first.getString("next") + "\"");
        assertEquals(1, second.getJsonArray("items").size());
        assertEquals("forbidden", op(outsiderPad, "\"op\":\"members\",\"groupId\":\"" + groupId + "\"").getString("code"));
        JsonObject mine = op(memberPad, "\"op\":\"mine\"");
        assertEquals(groupId, mine.getJsonArray("items").getJsonObject(0).getString("id"), mine.toString());
        JsonObject found = op(outsiderPad, "\"op\":\"search\",\"q\":\"" + name + "\"");
        assertEquals(groupId, found.getJsonArray("items").getJsonObject(0).getString("id"), found.toString());
        assertEquals("one-criterion", op(outsiderPad, "\"op\":\"search\",\"q\":\"a\",\"tag\":\"b\"").getString("code"));
        assertEquals("ok", op(ownerPad, "\"op\":\"requests\",\"groupId\":\"" + groupId + "\"").getString("result"));
        ownerPad.bye();
        memberPad.bye();
        outsiderPad.bye();
    }
}
