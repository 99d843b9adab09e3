package io.roost.chat;

import io.roost.chat.store.ChatStore;
import io.roost.platform.delivery.Notice;
import io.roost.platform.json.Jsonp;
import io.roost.platform.outbox.OutboxPublisher;
import io.roost.platform.problem.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.transaction.Transactional;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;

/**
 * The recall transaction: both copies of a message keep their row and seq, marked recalled, with no
 * content shown; both conversation rows get a new sync version. Lock order: the two timeline rows,
 * then chat_conversation ((owner, peer) order) — a send locks no existing timeline row and its
 * conversation rows in the same order, so a recall and a send of the conversation never deadlock.
 * It joins a caller's transaction (an operator's recall commits with its audit entry), else it has
 * its own.
 */
@ApplicationScoped
public class ChatRecalls {

    /** What a conversation list shows for a recalled last message. */
    static final String PREVIEW = "[recalled]";

    @Inject
    ChatStore store;

    @Inject
    OutboxPublisher outbox;

    @Inject
    Event<Notice> notices;

    @Inject
    SyncVersions versions;

    /**
     * Recalls the message {@code seq} of the conversation {@code owner}–{@code peer}, by {@code by};
     * {@code window} null: an operator's recall, of anyone's message at any age. Recalling a recalled
     * message answers the same and writes nothing.
     */
    @Transactional
    public ChatMessage recall(long owner, long peer, long seq, long by, Duration window) {
        ChatMessage m = store.message(owner, peer, seq)
                .orElseThrow(() -> ProblemException.notFound("No message " + seq + " in this conversation."));
        if (window != null) {
            check(m, owner, window, OffsetDateTime.now());
        }
        if (m.recalled()) {
            return m;
        }
        Map<Long, Boolean> countedUnread = store.markRecalled(owner, peer, seq);
        if (countedUnread.isEmpty()) {
            // a concurrent recall committed first (we waited for its rows): its answer is ours
            return store.message(owner, peer, seq).orElseThrow();
        }
        for (long side : ChatService.sorted(owner, peer)) {
            long other = side == owner ? peer : owner;
            // unread counted for whoever did not send it (both sides, for a system message) unless they deleted it already
            store.recalledInConversation(side, other, seq, versions.next(side), countedUnread.getOrDefault(side, false), PREVIEW);
        }
        // the participants as the message's own event named them: its sender first
        long from = m.senderUid() == peer ? peer : owner;
        long to = from == owner ? peer : owner;
        JsonObject event = Jsonp.PROVIDER.createObjectBuilder().add("msgId", Long.toString(m.msgId())).add("seq", seq)
                .add("from", Long.toString(from)).add("to", Long.toString(to)).add("senderUid", Long.toString(m.senderUid()))
                .add("by", Long.toString(by)).add("recalledAt", System.currentTimeMillis()).build();
        outbox.publish(ChatService.EVENTS_TOPIC, "recall", Long.toString(m.msgId()), event.toString());
        notices.fire(new Notice(List.of(to, from), "chatRecall", event));
        return store.message(owner, peer, seq).orElseThrow();
    }

    /**
     * A user's recall: only of their own message (403 {@code not-sender}; a system message is no
     * user's), and only within the window after it was sent (409 {@code recall-window-passed}). A
     * message already recalled passes, so a repeated recall gets the same answer however late.
     */
    static void check(ChatMessage m, long owner, Duration window, OffsetDateTime now) {
        if (m.senderUid() != owner) {
            throw new ProblemException(403, "not-sender", "Forbidden", "Only its sender may recall a message.");
        }
        if (!m.recalled() && m.createdAt().plus(window).isBefore(now)) {
            throw ProblemException.conflict("recall-window-passed", "A message can be recalled within " + window.toSeconds()
                    + " s of sending; this one is older.");
        }
    }
}
