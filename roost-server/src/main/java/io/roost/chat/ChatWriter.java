package io.roost.chat;

import io.roost.chat.store.ChatStore;
import io.roost.chat.store.SendBatchStore;
import io.roost.identity.AccountService;
import io.roost.platform.ids.IdGenerator;
import io.roost.platform.json.JsonText;
import io.roost.platform.json.Jsonp;
import io.roost.platform.outbox.OutboxPublisher;
import io.roost.platform.problem.ProblemException;
import io.roost.social.SocialGraph;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The send transaction, for a batch of messages at once (group commit: {@link SendQueue}), in the
 * lock order chat_send keys → chat_conversation rows ((owner, peer) order): two devices of one user
 * and both participants sending at once queue on the conversation's first row, which carries its
 * seq counter, and never deadlock. Its own transaction, committed before it returns.
 */
@ApplicationScoped
public class ChatWriter {

    @jakarta.ejb.EJB
    io.roost.chat.store.MessageMediaStore mediaStore;

    @Inject
    ChatStore store;

    @Inject
    SendBatchStore batch;

    @Inject
    IdGenerator ids;

    @Inject
    OutboxPublisher outbox;

    @Inject
    Event<ChatPush.Batch> pushes;

    @Inject
    SyncVersions versions;

    @Inject
    DeliveredCursors delivered;

    @Inject
    Receipts receipts;

    @Inject
    StrangerLimit strangers;

    @Inject
    AccountService accounts;

    @Inject
    SocialGraph graph;

    /** Both users active, no block either way: checked in the claim's statement ({@link SendBatchStore.Checks}). */
    private SendBatchStore.Checks checks;

    /** The answer to a message the checks refused when it was claimed: nothing was written for it. */
    static final Sent REFUSED = new Sent(null, 0, 0, null, false);

    @PostConstruct
    void init() {
        checks = SendBatchStore.Checks.of(accounts::activeSql, graph::blockedEitherWaySql);
    }

    /**
     * One checked message to write: the command, the body as stored (after the content filter), its
     * resend hash, and the device connection it came from (null: REST).
     */
    public record Write(SendCommand command, JsonObject body, byte[] hash, String fromConnection) {
    }

    /**
     * Writes a batch of messages in one transaction: three statements for all of them, in the one
     * lock order (sendId keys, then conversation rows). The first also makes the checks that need
     * other modules' rows (both users active, no block either way). Answers per write, in order:
     * its {@link Sent}; {@link #REFUSED} where those checks refused it; or null where a concurrent
     * transaction had claimed its sendId first (the caller reads that one's answer after this
     * commit). The sendIds must be distinct; the writes must have passed the checks made before
     * (the quote, the content filter).
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<Sent> writeAll(List<Write> writes) {
        List<SendBatchStore.Claim> claims = new ArrayList<>();
        for (Write w : writes) {
            SendCommand c = w.command();
            claims.add(new SendBatchStore.Claim(SendQueue.key(c), ids.nextId(), c.peer(), w.hash(), !c.system()));
        }
        SendBatchStore.Claimed claimed = batch.claim(claims, checks);
        Map<SendBatchStore.SendKey, OffsetDateTime> times = claimed.times();
        List<Sent> answers = new ArrayList<>(java.util.Collections.nCopies(writes.size(), null));
        List<Integer> live = new ArrayList<>();
        for (int i = 0; i < writes.size(); i++) {
            if (times.containsKey(claims.get(i).key())) {
                live.add(i);
            } else if (claimed.refused().contains(claims.get(i).key())) {
                answers.set(i, REFUSED);
            }
        }
        if (live.isEmpty()) {
            return answers;
        }

        BatchSeqs batchSeqs = BatchSeqs.of(live.stream().map(i -> pair(writes.get(i).command())).toList());
        List<ChatStore.TimelineRow> rows = new ArrayList<>();
        List<Long[]> mediaRefs = new ArrayList<>(); // {media, owner, msgId} per copy that names a stored file
        Map<List<Long>, ChatStore.ConversationChange> conversations = new TreeMap<>(PAIR_ORDER);
        for (int k = 0; k < live.size(); k++) {
            int i = live.get(k);
            SendCommand c = writes.get(i).command();
            JsonObject body = writes.get(i).body();
            int added = batchSeqs.added().get(pair(c));
            long seqFromLast = batchSeqs.fromLast()[k];
            long msgId = claims.get(i).msgId();
            long senderUid = c.system() ? 0 : c.sender();
            String json = JsonText.of(body);
            rows.add(new ChatStore.TimelineRow(c.sender(), c.peer(), seqFromLast, msgId, senderUid, c.sendId(), c.type(), json,
                    c.quoteMsgId(), c.priority()));
            rows.add(new ChatStore.TimelineRow(c.peer(), c.sender(), seqFromLast, msgId, senderUid, c.sendId(), c.type(), json,
                    c.quoteMsgId(), c.priority()));
            Long media = ChatMedia.mediaIdOf(body);
            if (media != null) {
                mediaRefs.add(new Long[] {media, c.sender(), msgId});
                mediaRefs.add(new Long[] {media, c.peer(), msgId});
            }
            String preview = ChatRules.preview(c.type(), body);
            // the sender's own message is not unread for them; a system message is for both
            change(conversations, c.sender(), c.peer(), added, msgId, senderUid, preview, c.system() ? 1 : 0);
            change(conversations, c.peer(), c.sender(), added, msgId, senderUid, preview, 1);
        }
        // each row takes its owner's next rank, in (owner, peer) order
        List<ChatStore.ConversationChange> ranked = new ArrayList<>();
        for (ChatStore.ConversationChange c : conversations.values()) {
            ranked.add(c.withRank(versions.next(c.owner())));
        }
        // acknowledgements held for these rows ride on this rewrite of them (their receipts after commit)
        Map<List<Long>, Long> carried = delivered.takeForTransaction(conversations.keySet());
        ChatStore.Upserted upserted = store.upsertConversationsAndInsertTimeline(ranked, rows, cursors(carried));
        if (!mediaRefs.isEmpty()) {
            mediaStore.insertDirect(column(mediaRefs, 0), column(mediaRefs, 1), column(mediaRefs, 2));
        }
        for (List<Long> c : batchSeqs.added().keySet()) {
            // every send moves both rows by the same count; rows that disagree would give the two copies different seqs
            Long lowRow = upserted.lastSeqs().get(c);
            Long highRow = upserted.lastSeqs().get(List.of(c.get(1), c.get(0)));
            if (!lowRow.equals(highRow)) {
                throw new IllegalStateException("The two conversation rows of users " + c.get(0) + " and " + c.get(1)
                        + " disagree on their last seq: " + lowRow + " and " + highRow + " after this send; nothing was written");
            }
        }
        // under the conversation rows' locks, with the batch's own rows in: a stranger's sends are counted one conversation at a time
        Set<List<Long>> checked = new HashSet<>();
        for (int i : live) {
            SendCommand c = writes.get(i).command();
            if (checked.add(List.of(c.sender(), c.peer()))) {
                strangers.check(c);
            }
        }

        List<MessageEvents.Event> events = new ArrayList<>();
        List<ChatPush> toPush = new ArrayList<>();
        for (int k = 0; k < live.size(); k++) {
            int i = live.get(k);
            SendCommand c = writes.get(i).command();
            long seq = upserted.lastSeqs().get(List.of(c.sender(), c.peer())) + batchSeqs.fromLast()[k];
            long msgId = claims.get(i).msgId();
            OffsetDateTime tm = times.get(claims.get(i).key());
            JsonObject event = event(c, writes.get(i).body(), msgId, seq, c.system() ? 0 : c.sender(), tm);
            events.add(new MessageEvents.Event(c.type(), msgId, JsonText.of(event)));
            // to the recipient's devices, and to the sender's other devices (they sync; the sending one has the answer)
            toPush.add(new ChatPush(c.sender(), c.peer(), seq, msgId, event, writes.get(i).fromConnection(), List.of()));
            answers.set(i, new Sent(c.sendId(), msgId, seq, tm, false));
        }
        // new rows, which lock nothing another transaction waits for
        outbox.publishAll(MessageEvents.envelopes(events));
        receipts.deliveredMoved(carryReceipts(upserted.moved(), writes, live, toPush, answers));
        pushes.fire(new ChatPush.Batch(toPush));
        return answers;
    }

    /**
     * The seq rule of a send batch, given each message's conversation in batch order: a
     * conversation's last seq grows by its message count in the batch ({@code added}), and its
     * messages take the seqs up to the new last seq in batch order. So each message's seq is known
     * relative to that last seq ({@code fromLast}: 0 for the conversation's newest message in the
     * batch, -1 for the one before it, …) before the conversation's row is locked and the last seq
     * itself is read.
     */
    record BatchSeqs(long[] fromLast, Map<List<Long>, Integer> added) {

        static BatchSeqs of(List<List<Long>> conversations) {
            Map<List<Long>, Integer> added = new HashMap<>();
            conversations.forEach(c -> added.merge(c, 1, Integer::sum));
            Map<List<Long>, Integer> taken = new HashMap<>();
            long[] fromLast = new long[conversations.size()];
            for (int k = 0; k < fromLast.length; k++) {
                fromLast[k] = taken.merge(conversations.get(k), 1, Integer::sum) - added.get(conversations.get(k));
            }
            return new BatchSeqs(fromLast, added);
        }
    }

    /**
     * Puts each delivered cursor this transaction moved on the frames its peer's devices get anyway:
     * the push of the conversation's last message in the batch, and that message's answer if the
     * peer sent it. A cursor is only carried by a send in its conversation, so every one finds a
     * message; those that do not (none) are returned, for a receipt of their own.
     */
    private static List<Cursor> carryReceipts(List<Cursor> moved, List<Write> writes, List<Integer> live, List<ChatPush> toPush,
                                              List<Sent> answers) {
        if (moved.isEmpty()) {
            return moved;
        }
        Map<List<Long>, Integer> lastPush = new HashMap<>(); // the conversation's last push (pushes are in live order)
        for (int k = 0; k < toPush.size(); k++) {
            lastPush.put(pair(writes.get(live.get(k)).command()), k);
        }
        List<Cursor> alone = new ArrayList<>();
        for (Cursor c : moved) {
            Integer k = lastPush.get(pair(c.owner(), c.peer()));
            if (k == null) {
                alone.add(c);
                continue;
            }
            ChatPush push = toPush.get(k);
            toPush.set(k, push.carrying(c));
            if (push.from() == c.peer()) {
                int i = live.get(k);
                answers.set(i, answers.get(i).carrying(c.seq()));
            }
        }
        return alone;
    }

    private static List<Cursor> cursors(Map<List<Long>, Long> byKey) {
        List<Cursor> cursors = new ArrayList<>(byKey.size());
        byKey.forEach((key, seq) -> cursors.add(new Cursor(key.get(0), key.get(1), seq)));
        return cursors;
    }

    /** Conversation rows in lock order: (owner, peer), as read reports and delivered cursors take them too. */
    static final java.util.Comparator<List<Long>> PAIR_ORDER =
            java.util.Comparator.<List<Long>, Long>comparing(p -> p.get(0)).thenComparing(p -> p.get(1));

    /**
     * Folds one message into its owner's conversation change (messages come in batch order, which
     * is seq order): the later message is the newest, unread adds up; {@code added} is the
     * conversation's message count in the batch.
     */
    /** Column {@code k} of rows of ids, for an unnest batch. */
    public static Long[] column(List<Long[]> rows, int k) {
        return rows.stream().map(r -> r[k]).toArray(Long[]::new);
    }

    private static void change(Map<List<Long>, ChatStore.ConversationChange> changes, long owner, long peer, int added, long msgId,
                               long senderUid, String preview, int unread) {
        ChatStore.ConversationChange now = new ChatStore.ConversationChange(owner, peer, added, msgId, senderUid, preview, unread, 0);
        changes.merge(List.of(owner, peer), now, (earlier, later) -> new ChatStore.ConversationChange(owner, peer, added, later.msgId(),
                later.senderUid(), later.preview(), earlier.unread() + later.unread(), 0));
    }

    private static List<Long> pair(SendCommand c) {
        return pair(c.sender(), c.peer());
    }

    private static List<Long> pair(long a, long b) {
        return List.of(Math.min(a, b), Math.max(a, b));
    }

    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void deleteForMe(long owner, long peer, long seq) {
        if (!store.deleteForOwner(owner, peer, seq, versions.next(owner))) {
            throw ProblemException.notFound("No message " + seq + " in this conversation.");
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
        return event(c.sender(), c.peer(), msgId, seq, senderUid, c.sendId(), c.type(), body, c.priority(), tm, c.quoteMsgId()).build();
    }

    /**
     * A stored message pushed again to a device of its owner (it did not acknowledge the first
     * push). {@code from} is the sender, or for a system message the owner's peer.
     */
    static JsonObject event(ChatMessage m) {
        long from = m.senderUid() == m.owner() ? m.owner() : m.peer();
        long to = from == m.owner() ? m.peer() : m.owner();
        JsonObjectBuilder b = event(from, to, m.msgId(), m.seq(), m.senderUid(), m.sendId(), m.type(), m.body(), m.priority(),
                m.createdAt(), m.quoteMsgId());
        if (m.recalled()) {
            b.add("recalled", true);
        }
        return b.build();
    }

    private static JsonObjectBuilder event(long from, long to, long msgId, long seq, long senderUid, String sendId, String type,
                                           JsonObject body, int priority, OffsetDateTime tm, Long quoteMsgId) {
        JsonObjectBuilder b = Jsonp.PROVIDER.createObjectBuilder().add("msgId", Long.toString(msgId)).add("seq", seq)
                .add("from", Long.toString(from)).add("to", Long.toString(to))
                .add("senderUid", Long.toString(senderUid)).add("sendId", sendId).add("msgType", type)
                .add("priority", priority).add("sentAt", tm.toInstant().toEpochMilli());
        if (body != null) {
            b.add("body", body);
        }
        if (quoteMsgId != null) {
            b.add("quote", Long.toString(quoteMsgId));
        }
        return b;
    }
}
