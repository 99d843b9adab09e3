package io.roost.gateway;

import io.roost.platform.json.JsonText;
import io.roost.platform.json.Jsonp;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import java.util.List;

/**
 * What one node sends another on {@code roost-deliveries} for group chat: the group frames of a
 * send transaction for the groups the other node holds members of ({@link Push}, one message per
 * node and transaction, each frame's text made once), or a change of one user's membership for the
 * other node's online index ({@link IndexChange}).
 */
public record GroupForward(List<Push> pushes, IndexChange change) {

    /** A group frame: who may see it is decided by the receiving node from its own index. */
    record Push(long groupId, long seq, String frame, boolean acknowledged, List<Long> mentions, boolean mentionAll, long memberEpoch,
                String fromConnection) {

        boolean mentions(long uid) {
            return mentionAll || mentions.contains(uid);
        }
    }

    /** A member's change for its connections on the receiving node. */
    record IndexChange(long groupId, long uid, String change, long joinedSeq, long leftSeq, boolean muted, List<String> connectionIds) {
    }

    public static boolean isGroupForward(String json) {
        return json.startsWith("{\"group");
    }

    String toJson() {
        JsonArrayBuilder all = Jsonp.PROVIDER.createArrayBuilder();
        var o = Jsonp.PROVIDER.createObjectBuilder();
        if (pushes != null) {
            for (Push p : pushes) {
                JsonArrayBuilder m = Jsonp.PROVIDER.createArrayBuilder();
                p.mentions().forEach(m::add);
                var b = Jsonp.PROVIDER.createObjectBuilder().add("g", p.groupId()).add("s", p.seq()).add("f", p.frame())
                        .add("a", p.acknowledged()).add("m", m).add("all", p.mentionAll()).add("e", p.memberEpoch());
                if (p.fromConnection() != null) {
                    b.add("c", p.fromConnection());
                }
                all.add(b);
            }
            return JsonText.of(o.add("groupPushes", all).build());
        }
        JsonArrayBuilder c = Jsonp.PROVIDER.createArrayBuilder();
        change.connectionIds().forEach(c::add);
        return JsonText.of(o.add("groupIndex", Jsonp.PROVIDER.createObjectBuilder().add("g", change.groupId()).add("u", change.uid())
                .add("change", change.change()).add("j", change.joinedSeq()).add("l", change.leftSeq()).add("muted", change.muted())
                .add("c", c)).build());
    }

    static GroupForward parse(String json) {
        JsonObject o = Jsonp.PROVIDER.createReader(new java.io.StringReader(json)).readObject();
        if (o.containsKey("groupPushes")) {
            List<Push> pushes = o.getJsonArray("groupPushes").getValuesAs(JsonObject.class).stream().map(p -> new Push(
                    p.getJsonNumber("g").longValue(), p.getJsonNumber("s").longValue(), p.getString("f"), p.getBoolean("a"),
                    p.getJsonArray("m").getValuesAs(JsonNumber.class).stream().map(JsonNumber::longValue).toList(), p.getBoolean("all"),
                    p.getJsonNumber("e").longValue(), p.get("c") instanceof JsonString s ? s.getString() : null)).toList();
            return new GroupForward(pushes, null);
        }
        JsonObject c = o.getJsonObject("groupIndex");
        return new GroupForward(null, new IndexChange(c.getJsonNumber("g").longValue(), c.getJsonNumber("u").longValue(),
                c.getString("change"), c.getJsonNumber("j").longValue(), c.getJsonNumber("l").longValue(), c.getBoolean("muted"),
                c.getJsonArray("c").getValuesAs(JsonString.class).stream().map(JsonString::getString).toList()));
    }
}
