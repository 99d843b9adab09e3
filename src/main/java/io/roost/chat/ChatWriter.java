package io.roost.chat;

import io.roost.chat.store.ChatStore;
import io.roost.platform.delivery.Notice;
import io.roost.platform.ids.IdGenerator;
import io.roost.platform.json.Jsonp;
import io.roost.platform.outbox.OutboxPublisher;
import io.roost.platform.problem.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The send transaction, in the lock order chat_send key → chat_pair → chat_user (uid order) →
 * chat_conversation ((owner, peer) order): two devices of one user and both participants sending at
 * once queue on the pair row and never deadlock. Its own transaction, committed before it returns.
 */
@ApplicationScoped
public class ChatWriter {

    @Inject
    ChatStore store;

    @Inject
    IdGenerator ids;

    @Inject
    OutboxPublisher outbox;

    @Inject
    Event<Notice> notices;

    @Inject
    StrangerLimit strangers;

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public Sent write(SendCommand c, JsonObject body, byte[] hash) {
        long msgId = ids.nextId();
        if (!store.claimSend(c.sender(), c.deviceKey(), c.sendId(), msgId, c.peer(), hash)) {
            // a concurrent send of this sendId committed first (we waited for it on the key): its answer is ours
            return resent(c, hash, store.findSend(c.sender(), c.deviceKey(), c.sendId())
                    .orElseThrow(() -> ProblemException.conflict("send-id-conflict", "sendId " + c.sendId() + " is in flight.")));
        }
        Long[] uids = ChatService.sorted(c.sender(), c.peer());
        long seq = store.nextSeq(uids[0], uids[1]);
        strangers.check(c); // under the pair row's lock: the conversation's sends are counted one at a time
        Map<Long, Long> versions = store.bumpVersions(uids);
        long senderUid = c.system() ? 0 : c.sender();
        String json = body.toString();
        store.insertTimeline(List.of(
                new ChatStore.TimelineRow(c.sender(), c.peer(), seq, msgId, senderUid, c.sendId(), c.type(), json, c.quoteMsgId(), c.priority()),
                new ChatStore.TimelineRow(c.peer(), c.sender(), seq, msgId, senderUid, c.sendId(), c.type(), json, c.quoteMsgId(), c.priority())));
        String preview = ChatRules.preview(c.type(), body);
        store.upsertConversations(List.of(
                // the sender's own message is not unread for them; a system message is for both
                new ChatStore.ConversationChange(c.sender(), c.peer(), seq, msgId, senderUid, preview, c.system(), versions.get(c.sender())),
                new ChatStore.ConversationChange(c.peer(), c.sender(), seq, msgId, senderUid, preview, true, versions.get(c.peer()))));
        OffsetDateTime tm = store.completeSend(c.sender(), c.deviceKey(), c.sendId(), seq);
        JsonObject event = event(c, body, msgId, seq, senderUid, tm);
        outbox.publish(ChatService.EVENTS_TOPIC, c.type(), Long.toString(msgId), event.toString());
        // to the recipient's devices, and to the sender's (its other devices sync; the sending one gets it too)
        notices.fire(new Notice(List.of(c.peer(), c.sender()), "chatMsg", event));
        return new Sent(c.sendId(), msgId, seq, tm, false);
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void deleteForMe(long owner, long peer, long seq) {
        long version = store.bumpVersions(new Long[] {owner}).get(owner);
        if (!store.deleteForOwner(owner, peer, seq, version)) {
            throw ProblemException.notFound("No message " + seq + " in this conversation."); // rolls the bump back
        }
    }

    /** The stored answer to a resend, or 409 {@code send-id-conflict} if the resend is not the same message. */
    static Sent resent(SendCommand c, byte[] hash, ChatStore.SendRow stored) {
        if (!Arrays.equals(hash, stored.bodyHash()) || stored.peer() != c.peer()) {
            throw ProblemException.conflict("send-id-conflict", "sendId " + c.sendId() + " was used for another message.");
        }
        return new Sent(c.sendId(), stored.msgId(), stored.seq(), stored.createdAt(), true);
    }

    /** The message as the topic and the devices see it (ids as strings). */
    static JsonObject event(SendCommand c, JsonObject body, long msgId, long seq, long senderUid, OffsetDateTime tm) {
        JsonObjectBuilder b = Jsonp.PROVIDER.createObjectBuilder().add("msgId", Long.toString(msgId)).add("seq", seq)
                .add("from", Long.toString(c.sender())).add("to", Long.toString(c.peer()))
                .add("senderUid", Long.toString(senderUid)).add("sendId", c.sendId()).add("msgType", c.type())
                .add("body", body).add("priority", c.priority()).add("sentAt", tm.toInstant().toEpochMilli());
        if (c.quoteMsgId() != null) {
            b.add("quote", Long.toString(c.quoteMsgId()));
        }
        return b.build();
    }
}
