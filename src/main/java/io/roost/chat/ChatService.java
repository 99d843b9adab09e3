package io.roost.chat;

import io.roost.chat.store.ChatStore;
import io.roost.identity.AccountService;
import io.roost.platform.api.Page;
import io.roost.platform.json.Jsonp;
import io.roost.platform.problem.ProblemException;
import io.roost.social.SocialGraph;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * One-to-one chat, the module's public face. A send is checked first (sendId, type, body, size,
 * recipient active, no block either way, the quote visible, the content filter) and then written by
 * write diffusion in one transaction of its own ({@link ChatWriter}): the conversation's seq, both
 * timeline rows, both conversation rows, the outbox event and the {@code chatMsg} notice. It
 * returns after commit, so an answer means durable. A resend of a stored sendId gets the stored
 * answer and writes nothing; the same sendId with another content is 409 {@code send-id-conflict}.
 */
@ApplicationScoped
public class ChatService {

    public static final String EVENTS_TOPIC = "roost-chat-events";

    /** The most items a page holds. */
    public static final int MAX_LIMIT = 100;

    @Inject
    ChatStore store;

    @Inject
    ChatWriter writer;

    @Inject
    ChatSettings settings;

    @Inject
    ContentFilter filter;

    @Inject
    AccountService accounts;

    @Inject
    SocialGraph graph;

    @Inject
    ChatRecalls recalls;

    /** Sends (or answers a resend); returns after commit. */
    public Sent send(SendCommand c) {
        ChatRules.checkSendId(c.sendId());
        ChatRules.checkType(c.type());
        ChatRules.checkPriority(c.priority());
        if (c.system() != c.type().equals("system")) {
            throw ProblemException.forbidden("System messages come from back ends, as the system.");
        }
        if (c.deviceKey() == null || c.deviceKey().isBlank() || c.deviceKey().length() > 80) {
            throw new IllegalArgumentException("a device key of 1 to 80 characters is required");
        }
        if (c.sender() == c.peer()) {
            throw ProblemException.badRequest("self-message", "A message goes to someone else.");
        }
        ChatRules.checkBody(c.type(), c.body(), settings.maxBodyBytes());
        byte[] hash = ChatRules.hash(c);
        // A resend is answered from the stored sendId before any other check: what was accepted stays accepted.
        var stored = store.findSend(c.sender(), c.deviceKey(), c.sendId());
        if (stored.isPresent()) {
            return ChatWriter.resent(c, hash, stored.get());
        }
        accounts.requireActiveUser(c.sender());
        accounts.requireActiveUser(c.peer());
        if (!c.system() && graph.relation(c.sender(), c.peer()).blockedEitherWay()) {
            throw new ProblemException(403, "blocked", "Forbidden", "One of you blocks the other; nothing was sent.");
        }
        if (c.quoteMsgId() != null && !store.visible(c.sender(), c.peer(), c.quoteMsgId())) {
            throw ProblemException.badRequest("invalid-quote", "The quoted message is not in this conversation (or you deleted it).");
        }
        JsonObject body = c.body();
        if (c.type().equals("text")) {
            String text = body.getString("text");
            try {
                String checked = filter.check(c.sender(), c.peer(), text);
                if (!checked.equals(text)) {
                    body = Jsonp.PROVIDER.createObjectBuilder(body).add("text", checked).build();
                }
            } catch (ContentFilter.ContentRejected e) {
                throw new ProblemException(422, "content-rejected", "Unprocessable content", e.getMessage());
            }
        }
        return writer.write(c, body, hash);
    }

    /** The owner's conversations changed after sync version {@code since}, in version order; {@code next} is a version. */
    public Page<Conversation> conversations(long owner, long since, int limit) {
        Page.checkLimit(limit, MAX_LIMIT);
        return Page.of(store.conversationsSince(owner, since, limit + 1), limit, c -> c, c -> Long.toString(c.syncVersion()));
    }

    /**
     * A page of the owner's timeline with {@code peer}, ascending by seq, deleted messages as
     * tombstones. {@code afterSeq}: the next messages after it ({@code next}: the last seq);
     * {@code beforeSeq} (or neither: the newest): the messages just before it ({@code next}: the
     * first seq, to page further back).
     */
    public Page<ChatMessage> messages(long owner, long peer, Long afterSeq, Long beforeSeq, int limit) {
        Page.checkLimit(limit, MAX_LIMIT);
        if (afterSeq != null && beforeSeq != null) {
            throw ProblemException.badRequest("one-cursor", "Give after or before, not both.");
        }
        if (afterSeq != null) {
            return Page.of(store.messagesAfter(owner, peer, afterSeq, limit + 1), limit, m -> m, m -> Long.toString(m.seq()));
        }
        List<ChatMessage> newestFirst = store.messagesBefore(owner, peer, beforeSeq == null ? Long.MAX_VALUE : beforeSeq, limit + 1);
        List<ChatMessage> items = new ArrayList<>(newestFirst.subList(0, Math.min(limit, newestFirst.size())));
        Collections.reverse(items);
        return new Page<>(items, newestFirst.size() > limit ? Long.toString(items.get(0).seq()) : null);
    }

    /** Deletes one message from the owner's timeline only (a tombstone stays); 404 if there is none. */
    public void deleteForMe(long owner, long peer, long seq) {
        writer.deleteForMe(owner, peer, seq);
    }

    /**
     * A long-away device's catch-up of one conversation after the last seq it holds: the newest
     * {@code limit} messages after {@code afterSeq}, ascending, and a gap marker when they do not
     * start right after it ({@link ChatSync#of}). The conversation's last seq is read first, so a
     * message committed meanwhile can only add to the answer, never pass for a purged one.
     */
    public ChatSync sync(long owner, long peer, long afterSeq, int limit) {
        Page.checkLimit(limit, MAX_LIMIT);
        long lastSeq = store.conversation(owner, peer).map(Conversation::lastSeq).orElse(0L);
        return ChatSync.of(afterSeq, store.newestAfter(owner, peer, afterSeq, limit + 1), limit, lastSeq);
    }

    /**
     * The sender recalls their message {@code seq} of the conversation with {@code peer}, within
     * {@code ROOST_CHAT_RECALL_WINDOW}: 404, 403 {@code not-sender}, 409 {@code recall-window-passed};
     * a recalled message again answers the same. Returns the message as it now is (after commit).
     */
    public ChatMessage recall(long sender, long peer, long seq) {
        return recalls.recall(sender, peer, seq, sender, settings.recallWindow());
    }

    /**
     * An operator recalls any message of the conversation {@code owner}–{@code peer}, at any age;
     * joins the caller's transaction (the operator's audit entry), if there is one.
     */
    public ChatMessage recallAsOperator(long operator, long owner, long peer, long seq) {
        return recalls.recall(owner, peer, seq, operator, null);
    }

    /** The user's chat settings (the defaults if never set): read receipts, push preview. */
    public ChatUserSettings settings(long uid) {
        return store.userSettings(uid).orElse(ChatUserSettings.DEFAULTS);
    }

    /**
     * Changes the given settings (null: unchanged) of an active user; 400 {@code invalid-push-preview}
     * unless full, sender or none. Returns the settings as they now are.
     */
    public ChatUserSettings updateSettings(long uid, Boolean readReceipts, String pushPreview) {
        if (pushPreview != null && !ChatUserSettings.PUSH_PREVIEWS.contains(pushPreview)) {
            throw ProblemException.badRequest("invalid-push-preview", "pushPreview is full, sender or none.");
        }
        accounts.requireActiveUser(uid);
        return store.saveUserSettings(uid, readReceipts, pushPreview);
    }

    /** The two uids of a conversation in lock order. */
    static Long[] sorted(long a, long b) {
        Long[] uids = {a, b};
        Arrays.sort(uids);
        return uids;
    }
}
