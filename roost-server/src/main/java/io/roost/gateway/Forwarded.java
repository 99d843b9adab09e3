package io.roost.gateway;

import io.roost.platform.json.JsonText;
import io.roost.platform.json.Jsonp;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import java.io.StringReader;
import java.util.List;

/**
 * A frame one node sends another on {@code roost-deliveries} for connections the other holds. A
 * chat message also carries each connection's owner and the message's place ({@link Chat}), so
 * the receiving node tracks the acknowledgements and repairs a stale route itself.
 *
 * @param owners the owner of each connection, for a chat message; empty otherwise
 * @param chat   the chat message's place, or null for any other frame
 */
public record Forwarded(List<String> connectionIds, List<Long> owners, String frame, Chat chat) {

    /** Where a chat message stands: its conversation's participants as sent, and its seq. */
    public record Chat(long from, long to, long seq) {
    }

    public String toJson() {
        JsonArrayBuilder targets = Jsonp.PROVIDER.createArrayBuilder();
        connectionIds.forEach(targets::add);
        JsonObjectBuilder o = Jsonp.PROVIDER.createObjectBuilder().add("connectionIds", targets).add("frame", frame);
        if (chat != null) {
            JsonArrayBuilder uids = Jsonp.PROVIDER.createArrayBuilder();
            owners.forEach(uids::add);
            o.add("uids", uids).add("chat", Jsonp.PROVIDER.createObjectBuilder()
                    .add("from", chat.from()).add("to", chat.to()).add("seq", chat.seq()));
        }
        return JsonText.of(o.build());
    }

    public static Forwarded parse(String json) {
        JsonObject o = Jsonp.PROVIDER.createReader(new StringReader(json)).readObject();
        List<String> targets = o.getJsonArray("connectionIds").getValuesAs(JsonString.class).stream().map(JsonString::getString).toList();
        JsonObject chat = o.getJsonObject("chat");
        if (chat == null) {
            return new Forwarded(targets, List.of(), o.getString("frame"), null);
        }
        return new Forwarded(targets, o.getJsonArray("uids").getValuesAs(JsonNumber.class).stream().map(JsonNumber::longValue).toList(),
                o.getString("frame"), new Chat(chat.getJsonNumber("from").longValue(), chat.getJsonNumber("to").longValue(),
                chat.getJsonNumber("seq").longValue()));
    }
}
