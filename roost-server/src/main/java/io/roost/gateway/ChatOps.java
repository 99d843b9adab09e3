package io.roost.gateway;

import io.roost.chat.ChatMessage;
import io.roost.chat.ChatService;
import io.roost.chat.ReadState;
import io.roost.chat.MessageView;
import io.roost.chat.SendCommand;
import io.roost.chat.Sent;
import io.roost.chat.SyncView;
import io.roost.chat.group.GroupChat;
import io.roost.chat.group.GroupMessage;
import io.roost.chat.group.GroupMessageView;
import io.roost.chat.group.GroupSendCommand;
import io.roost.chat.group.GroupStateView;
import io.roost.chat.group.GroupSyncView;
import io.roost.platform.api.Page;
import io.roost.platform.ids.Ids;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.batch.BatchHandoff;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * {@code chatOp} frames for logged-in devices and their {@code chatAck}s. {@code send} and
 * {@code read} are batched with others and answered ({@code chatOpRet}) only after commit, without
 * holding a thread meanwhile; the conversation ops ({@code conversations}, {@code messages},
 * {@code sync}, {@code delete}, {@code recall}) answer with the REST API's views. A message's place
 * is {@code msgSeq} in these frames ({@code seq} stays the client's request id, as in every op
 * answer). The device's sendIds are its own: the key is the device type and id.
 */
@ApplicationScoped
public class ChatOps {


    @Inject
    ChatService chat;

    @Inject
    AckWheel acks;

    @Inject
    GroupChat groupChat;

    @Resource
    ManagedExecutorService executor;

    /** The answers of one batch go out as one task on the executor. */
    private Executor answers;

    @PostConstruct
    void start() {
        answers = new BatchHandoff(executor);
    }

    /**
     * Serves one {@code chatOp}; its answer goes to {@code reply}. A {@code send} is answered when
     * its batch has committed: no thread waits per message.
     */
    public void handle(long me, String deviceType, String deviceId, String connectionId, JsonObject frame, Consumer<String> reply) {
        if (frame.containsKey("group")) {
            groupOp(me, deviceType, deviceId, connectionId, frame, reply);
            return;
        }
        if (CONVERSATION_OPS.contains(frame.getString("op", ""))) {
            reply.accept(conversationOp(me, frame));
            return;
        }
        JsonObjectBuilder ret = Frames.reply(frame);
        try {
            String op = text(frame, "op");
            switch (op == null ? "" : op) {
                case "send" -> {
                    answerLater(send(me, deviceType, deviceId, connectionId, frame), ret, ChatOps::sent, reply);
                    return;
                }
                case "read" -> {
                    answerLater(read(me, connectionId, frame), ret, (r, state) -> r.add("peer", frame.getString("peer"))
                            .add("readSeq", state.readSeq()).add("unread", state.unread()), reply);
                    return;
                }
                default -> throw ProblemException.badRequest("unknown-op", "Unknown chatOp '" + op + "'.");
            }
        } catch (ProblemException e) {
            reply.accept(Frames.outcome(ret, e));
        }
    }

    // ---- the conversation ops: reads, catch-up, delete for me, recall ----

    /** The ops on the device user's own conversations, answered with the REST API's views. */
    public static final Set<String> CONVERSATION_OPS = Set.of("conversations", "messages", "sync", "delete", "recall");

    /**
     * {@code conversations} {since?, limit?}, {@code messages} {peer, after? | before?, limit?},
     * {@code sync} {peer, after?, limit?}, {@code delete} {peer, msgSeq}, {@code recall} {peer, msgSeq}.
     * A message's seq is {@code msgSeq} here, as in the send's answer: the frame's {@code seq} is the request's id.
     */
    String conversationOp(long me, JsonObject frame) {
        String op = frame.getString("op", "");
        JsonObjectBuilder ret = Frames.reply(frame);
        try {
            switch (op) {
                case "conversations" -> {
                    Long since = cursor(frame, "since");
                    Frames.page(ret, chat.conversationList(me, since == null ? 0 : since, limit(frame)));
                }
                case "messages" -> {
                    Page<ChatMessage> page = chat.messages(me, peer(frame), cursor(frame, "after"), cursor(frame, "before"),
                            limit(frame));
                    Frames.page(ret, new Page<>(page.items().stream().map(MessageView::of).toList(), page.next()));
                }
                case "sync" -> {
                    Long after = cursor(frame, "after");
                    SyncView sync = SyncView.of(chat.sync(me, peer(frame), after == null ? 0 : after,
                            Frames.limit(frame, ChatService.MAX_LIMIT, ChatService.MAX_LIMIT)));
                    Frames.toJson(sync).asJsonObject().forEach(ret::add); // items, gap (absent: none), lastSeq
                }
                case "delete" -> chat.deleteForMe(me, peer(frame), msgSeq(frame));
                case "recall" -> ret.add("message", Frames.toJson(MessageView.of(chat.recall(me, peer(frame), msgSeq(frame)))));
                default -> throw new IllegalStateException(op);
            }
            return Frames.outcome(ret, null);
        } catch (RuntimeException e) { // every op is answered: its problem, or server-busy / internal-error
            return Frames.outcome(ret, problem(e));
        }
    }

    // ---- group conversations: the same ops with {group} instead of {peer} ----

    /**
     * A {@code chatOp} on a group ({@code group}: its id): {@code send} {sendId, msgType, body,
     * quote?, priority?, mentions?, mentionAll?} answered after commit; {@code read} {readSeq};
     * {@code messages} {after? | before?, limit?}; {@code sync} {after?, limit?}; {@code state};
     * {@code readers} {msgSeq, after?, limit?}; {@code recall} and {@code delete} {msgSeq};
     * {@code mute} {muted}.
     */
    void groupOp(long me, String deviceType, String deviceId, String connectionId, JsonObject frame, Consumer<String> reply) {
        String op = frame.getString("op", "");
        JsonObjectBuilder ret = Frames.reply(frame);
        try {
            long group = Ids.parse(text(frame, "group") == null ? "" : text(frame, "group"));
            ret.add("group", Long.toString(group));
            switch (op) {
                case "send" -> {
                    answerLater(groupChat.sendAsync(new GroupSendCommand(me, group, deviceKey(deviceType, deviceId), text(frame, "sendId"),
                            text(frame, "msgType"), frame.get("body") instanceof JsonObject o ? o : null, Frames.optionalId(frame, "quote"),
                            priority(frame), mentions(frame), frame.getBoolean("mentionAll", false), false), connectionId), ret,
                            ChatOps::sent, reply);
                    return;
                }
                case "read" -> {
                    Long readSeq = Frames.wholeLong(frame.get("readSeq"));
                    if (readSeq == null) {
                        throw ProblemException.badRequest("invalid-seq", "readSeq is a message seq, 0 or more.");
                    }
                    GroupStateView state = groupChat.read(me, group, readSeq);
                    ret.add("readSeq", state.readSeq()).add("unread", state.unread());
                }
                case "messages" -> {
                    Page<GroupMessage> page = groupChat.messages(me, false, group, cursor(frame, "after"), cursor(frame, "before"), limit(frame));
                    Frames.page(ret, new Page<>(page.items().stream().map(GroupMessageView::of).toList(), page.next()));
                }
                case "sync" -> {
                    Long after = cursor(frame, "after");
                    GroupSyncView sync = GroupSyncView.of(groupChat.sync(me, group, after == null ? 0 : after,
                            Frames.limit(frame, GroupChat.MAX_LIMIT, GroupChat.MAX_LIMIT)));
                    Frames.toJson(sync).asJsonObject().forEach(ret::add);
                }
                case "state" -> ret.add("state", Frames.toJson(groupChat.state(me, group)));
                case "readers" -> Frames.toJson(groupChat.readers(me, false, group, msgSeq(frame), cursor(frame, "after"), limit(frame)))
                        .asJsonObject().forEach(ret::add);
                case "recall" -> ret.add("message", Frames.toJson(GroupMessageView.of(groupChat.recall(me, false, group, msgSeq(frame)))));
                case "delete" -> ret.add("message", Frames.toJson(GroupMessageView.of(groupChat.delete(me, false, group, msgSeq(frame)))));
                case "mute" -> groupChat.setMuted(me, group, frame.getBoolean("muted", true));
                default -> throw ProblemException.badRequest("unknown-op", "Unknown chatOp '" + op + "' for a group.");
            }
            reply.accept(Frames.outcome(ret, null));
        } catch (ClassCastException e) {
            reply.accept(Frames.outcome(ret, ProblemException.badRequest("invalid-frame", "A field has the wrong JSON type.")));
        } catch (RuntimeException e) {
            reply.accept(Frames.outcome(ret, problem(e)));
        }
    }

    private static int priority(JsonObject frame) {
        JsonValue priority = frame.get("priority");
        Integer level = priority == null ? Integer.valueOf(0) : Frames.smallInt(priority);
        if (level == null) {
            throw ProblemException.badRequest("invalid-priority", "priority is a whole number, 0 to 9.");
        }
        return level;
    }

    /** {@code mentions}: an array of member ids (strings); 400 {@code invalid-mention} otherwise. */
    private static java.util.List<Long> mentions(JsonObject frame) {
        JsonValue v = frame.get("mentions");
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return java.util.List.of();
        }
        if (!(v instanceof jakarta.json.JsonArray a) || a.stream().anyMatch(x -> !(x instanceof JsonString))) {
            throw ProblemException.badRequest("invalid-mention", "mentions is an array of user ids (strings).");
        }
        return a.getValuesAs(JsonString.class).stream().map(s -> Ids.parse(s.getString())).toList();
    }

    /**
     * A group {@code chatAck} {group, seq}: this device holds every message of the group up to seq.
     * Clears the acknowledged pushes; no cursor is written (a device catches up from the seq it holds).
     */
    private String groupAck(String connectionId, JsonObject frame) {
        long group;
        try {
            group = Ids.parse(text(frame, "group"));
        } catch (ProblemException e) {
            return Frames.error("invalid-ack", "chatAck needs peer (a user id) or group (a group id), and seq (a message seq).");
        }
        Long seq = Frames.wholeLong(frame.get("seq"));
        if (seq == null || seq < 1) {
            return Frames.error("invalid-ack", "chatAck needs peer (a user id) or group (a group id), and seq (a message seq).");
        }
        acks.ackGroup(connectionId, group, seq);
        return null;
    }

    private static int limit(JsonObject frame) {
        return Frames.limit(frame, 50, ChatService.MAX_LIMIT);
    }

    private static long peer(JsonObject frame) {
        return Ids.parse(frame.getString("peer", ""));
    }

    private static long msgSeq(JsonObject frame) {
        Long seq = cursor(frame, "msgSeq");
        if (seq == null) {
            throw ProblemException.badRequest("invalid-cursor", "msgSeq (the message's seq) is required.");
        }
        return seq;
    }

    /** A seq or version field: a number or a decimal string ≥ 0; null if absent (400 {@code invalid-cursor}). */
    private static Long cursor(JsonObject frame, String field) {
        JsonValue v = frame.get(field);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        try {
            Long n = v instanceof JsonString s ? Long.valueOf(s.getString()) : Frames.wholeLong(v);
            if (n != null && n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw ProblemException.badRequest("invalid-cursor", field + " is a sequence number or version (an integer ≥ 0).");
    }

    /**
     * Answers when the batch commits, on the executor (a slow socket must not hold up the batch
     * writer that completes the stage); a batch's answers go out together, as one task.
     */
    private <T> void answerLater(CompletableFuture<T> done, JsonObjectBuilder ret, BiFunction<JsonObjectBuilder, T, JsonObjectBuilder> fill,
                                 Consumer<String> reply) {
        done.whenCompleteAsync((value, failure) -> reply.accept(failure == null
                ? Frames.outcome(fill.apply(ret, value), null) : Frames.outcome(ret, problem(failure))), answers);
    }

    /**
     * Why an op failed, as the answer's code: its problem, {@code server-busy} if a dependency is
     * out of reach, else {@code internal-error} (logged).
     */
    private static ProblemException problem(Throwable failure) {
        return Frames.failure(failure, "chatOp", "try again (a send with the same sendId)");
    }

    private static JsonObjectBuilder sent(JsonObjectBuilder ret, Sent sent) {
        ret.add("sendId", sent.sendId()).add("msgId", Long.toString(sent.msgId())).add("msgSeq", sent.seq())
                .add("sentAt", sent.tm().toInstant().toEpochMilli()).add("resent", sent.resent());
        // the peer's delivered receipt, when this send's transaction moved the peer's cursor
        return sent.peerDeliveredSeq() > 0 ? ret.add("peerDeliveredSeq", sent.peerDeliveredSeq()) : ret;
    }

    private CompletableFuture<Sent> send(long me, String deviceType, String deviceId, String connectionId, JsonObject frame) {
        JsonValue body = frame.get("body");
        JsonValue priority = frame.get("priority");
        Integer level = priority == null ? Integer.valueOf(0) : Frames.smallInt(priority);
        if (level == null) {
            throw ProblemException.badRequest("invalid-priority", "priority is a whole number, 0 to 9.");
        }
        return chat.sendAsync(new SendCommand(me, Ids.parse(text(frame, "peer")), deviceKey(deviceType, deviceId),
                text(frame, "sendId"), text(frame, "msgType"), body instanceof JsonObject o ? o : null,
                Frames.optionalId(frame, "quote"), level, false), connectionId);
    }

    /** Everything of the conversation up to {@code readSeq} is read, on all of my devices; answered after commit. */
    private CompletableFuture<ReadState> read(long me, String connectionId, JsonObject frame) {
        long peer = Ids.parse(text(frame, "peer"));
        Long readSeq = Frames.wholeLong(frame.get("readSeq"));
        if (readSeq == null) {
            throw ProblemException.badRequest("invalid-seq", "readSeq is a message seq, 0 or more.");
        }
        return chat.readAsync(me, peer, readSeq, connectionId);
    }

    /**
     * A {@code chatAck}: this device holds every message of its conversation with {@code peer} up
     * to {@code seq}. Clears the acknowledged pushes and moves the delivered cursor; nothing is
     * answered. Null if accepted, else the error frame to send (the connection stays open).
     */
    public String ack(long me, String connectionId, JsonObject frame) {
        if (frame.containsKey("group")) {
            return groupAck(connectionId, frame);
        }
        long peer;
        try {
            peer = Ids.parse(text(frame, "peer"));
        } catch (ProblemException e) {
            return Frames.error("invalid-ack", "chatAck needs peer (a user id) and seq (a message seq).");
        }
        Long seq = Frames.wholeLong(frame.get("seq"));
        if (seq == null || seq < 1) {
            return Frames.error("invalid-ack", "chatAck needs peer (a user id) and seq (a message seq).");
        }
        acks.ack(connectionId, peer, seq);
        chat.acknowledged(me, peer, seq);
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
