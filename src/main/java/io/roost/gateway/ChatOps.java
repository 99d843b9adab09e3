package io.roost.gateway;

import io.roost.chat.ChatService;
import io.roost.chat.ReadState;
import io.roost.chat.SendCommand;
import io.roost.chat.Sent;
import io.roost.platform.ids.Ids;
import io.roost.platform.problem.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * {@code chatOp} frames for logged-in devices: {@code send} stores a one-to-one message through the
 * chat service, answered ({@code chatOpRet}) only after commit with its {@code msgId} and
 * conversation sequence {@code msgSeq} ({@code seq} stays the client's request id, as in every
 * op answer). The device's sendIds are its own: the key is the device type and id.
 */
@ApplicationScoped
public class ChatOps {

    @Inject
    ChatService chat;

    @Inject
    AckWheel acks;

    @Inject
    DeliveredCursors cursors;

    public String handle(long me, String deviceType, String deviceId, JsonObject frame) {
        JsonObjectBuilder ret = Frames.reply(frame);
        try {
            String op = text(frame, "op");
            switch (op == null ? "" : op) {
                case "send" -> send(me, deviceType, deviceId, frame, ret);
                case "read" -> read(me, frame, ret);
                default -> throw ProblemException.badRequest("unknown-op", "Unknown chatOp '" + op + "'.");
            }
            return Frames.outcome(ret, null);
        } catch (ProblemException e) {
            return Frames.outcome(ret, e);
        }
    }

    private void send(long me, String deviceType, String deviceId, JsonObject frame, JsonObjectBuilder ret) {
        JsonValue body = frame.get("body");
        JsonValue priority = frame.get("priority");
        if (priority != null && !(priority instanceof JsonNumber)) {
            throw ProblemException.badRequest("invalid-priority", "priority is a number.");
        }
        String quote = text(frame, "quote");
        Sent sent = chat.send(new SendCommand(me, Ids.parse(text(frame, "peer")), deviceKey(deviceType, deviceId),
                text(frame, "sendId"), text(frame, "msgType"), body instanceof JsonObject o ? o : null,
                quote == null ? null : Ids.parse(quote), priority == null ? 0 : ((JsonNumber) priority).intValue(), false));
        ret.add("sendId", sent.sendId()).add("msgId", Long.toString(sent.msgId())).add("msgSeq", sent.seq())
                .add("sentAt", sent.tm().toInstant().toEpochMilli()).add("resent", sent.resent());
    }

    /** Everything of the conversation up to {@code readSeq} is read, on all of my devices; answered after commit. */
    private void read(long me, JsonObject frame, JsonObjectBuilder ret) {
        long peer = Ids.parse(text(frame, "peer"));
        if (!(frame.get("readSeq") instanceof JsonNumber readSeq) || !readSeq.isIntegral()) {
            throw ProblemException.badRequest("invalid-seq", "readSeq is a message seq, 0 or more.");
        }
        ReadState state = chat.read(me, peer, readSeq.longValue());
        ret.add("peer", Long.toString(peer)).add("readSeq", state.readSeq()).add("unread", state.unread());
    }

    /**
     * A {@code chatAck}: this device holds every message of its conversation with {@code peer} up
     * to {@code seq}. Clears the acknowledged pushes and moves the delivered cursor; nothing is
     * answered. Null if accepted, else the error frame to send (the connection stays open).
     */
    public String ack(long me, String connectionId, JsonObject frame) {
        long peer;
        try {
            peer = Ids.parse(text(frame, "peer"));
        } catch (ProblemException e) {
            return Frames.error("invalid-ack", "chatAck needs peer (a user id) and seq (a message seq).");
        }
        if (!(frame.get("seq") instanceof JsonNumber seq) || !seq.isIntegral() || seq.longValue() < 1) {
            return Frames.error("invalid-ack", "chatAck needs peer (a user id) and seq (a message seq).");
        }
        acks.ack(connectionId, peer, seq.longValue());
        cursors.record(me, peer, seq.longValue());
        return null;
    }

    /**
     * The key a device's sendIds are unique under: type and id, the id hashed when the two would
     * not fit the 80 characters the chat service keeps (device ids may have 128).
     */
    static String deviceKey(String deviceType, String deviceId) {
        String key = deviceType + ":" + deviceId;
        if (key.length() <= 80) {
            return key;
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(deviceId.getBytes(StandardCharsets.UTF_8));
            return deviceType + "#" + HexFormat.of().formatHex(digest, 0, 20);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A string field, or null when absent or not a string (the service then refuses it with its own code). */
    private static String text(JsonObject frame, String field) {
        return frame.get(field) instanceof JsonString s ? s.getString() : null;
    }
}
