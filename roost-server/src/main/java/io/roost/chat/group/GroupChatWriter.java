package io.roost.chat.group;

import io.roost.chat.ChatMedia;
import io.roost.chat.ChatRules;
import io.roost.chat.ChatService;
import io.roost.chat.MessageEvents;
import io.roost.chat.Sent;
import io.roost.chat.SyncVersions;
import io.roost.chat.ChatWriter;
import io.roost.chat.store.GroupChatStore;
import io.roost.group.GroupService;
import io.roost.platform.ids.IdGenerator;
import io.roost.platform.json.JsonText;
import io.roost.platform.json.Jsonp;
import io.roost.platform.outbox.OutboxPublisher;
import io.roost.platform.problem.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.transaction.Transactional;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The group chat transactions: a batch of sends, a group event's system message (in the group
 * change's own transaction), read reports, recall and delete, a member's own mute. Every one locks
 * the group's head row ({@code group_chat}) first, so sends, group changes (which lock {@code grp}
 * before it), recalls and deletes of one group queue on it and the group's seq is gap-free; the
 * membership checks of a send read the rows after that lock, so a kick committed before a send is
 * seen by it, and a send committed before a kick has the smaller seq.
 */
@ApplicationScoped
public class GroupChatWriter {

    /**
     * Every row a group transaction gives a sync version takes the next rank of one counter (the
     * system's uid, never an owner's), so the versions one transaction writes are all distinct: a
     * member's group entry takes the larger of its group's and its own.
     */
    static final long VERSION_KEY = 0;

    @jakarta.ejb.EJB
    io.roost.chat.store.MessageMediaStore mediaStore;

    @Inject
    GroupChatStore store;

    @Inject
    GroupService groups;

    @Inject
    IdGenerator ids;

    @Inject
    OutboxPublisher outbox;

    @Inject
    SyncVersions versions;

    @Inject
    Event<GroupPush.Batch> pushes;

    @Inject
    Event<GroupMembership> memberships;

    @Inject
    io.roost.chat.ChatSettings settings;

    /** One checked send: the command, its body as stored, its resend hash, the connection it came from. */
    record Write(GroupSendCommand command, JsonObject body, byte[] hash, String fromConnection) {

        GroupChatStore.SendKey key() {
            return new GroupChatStore.SendKey(command.sender(), command.deviceKey(), command.sendId());
        }
    }

    /** Another transaction claimed one of the batch's sendIds first: the batch is written again one by one. */
    static final class ClaimRace extends RuntimeException {
        ClaimRace() {
            super("a sendId of the batch was claimed by another transaction", null, false, false);
        }
    }

    /**
     * Writes a batch in one transaction. Answers per write, in order: its {@link Sent}, or the
     * {@link ProblemException} that refuses it (nothing written for it), or null where another
     * transaction had claimed its sendId first (a batch of one; a larger batch throws
     * {@link ClaimRace} and is written again one by one).
     */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public List<Object> writeAll(List<Write> writes) {
        List<Object> answers = new ArrayList<>(java.util.Collections.nCopies(writes.size(), null));
        TreeSet<Long> groupIds = new TreeSet<>();
        writes.forEach(w -> groupIds.add(w.command().groupId()));
        Map<Long, GroupChatStore.Head> heads = store.lock(groupIds);
        Map<Long, Checks> checks = new HashMap<>();
        for (long g : groupIds) {
            List<Long> uids = new ArrayList<>();
            for (Write w : writes) {
                if (w.command().groupId() == g) {
                    uids.add(w.command().sender());
                    uids.addAll(w.command().mentions());
                }
            }
            GroupService.SendContext context = groups.sendContext(g, uids).orElse(null);
            checks.put(g, new Checks(context, heads.get(g), store.members(g, uids), context == null ? Map.of() : context.rights()));
        }
        OffsetDateTime now = OffsetDateTime.now();
        List<Integer> passing = new ArrayList<>();
        Map<GroupChatStore.SendKey, Integer> refused = new LinkedHashMap<>();
        for (int i = 0; i < writes.size(); i++) {
            Write w = writes.get(i);
            try {
                checks.get(w.command().groupId()).check(w.command(), now, store);
                passing.add(i);
            } catch (ProblemException e) {
                answers.set(i, e);
                refused.put(w.key(), i);
            }
        }
        // what was accepted stays accepted: a refused resend of a stored message gets its stored answer
        if (!refused.isEmpty()) {
            store.findSends(refused.keySet()).forEach((key, row) -> {
                int i = refused.get(key);
                answers.set(i, resentOrConflict(writes.get(i), row));
            });
        }
        if (passing.isEmpty()) {
            return answers;
        }
        Map<Long, Long> nextSeq = new HashMap<>();
        heads.forEach((g, h) -> nextSeq.put(g, h.lastSeq()));
        List<GroupChatStore.Claim> claims = new ArrayList<>();
        long[] seqs = new long[writes.size()];
        long[] msgIds = new long[writes.size()];
        for (int i : passing) {
            Write w = writes.get(i);
            long seq = nextSeq.merge(w.command().groupId(), 1L, Long::sum);
            seqs[i] = seq;
            msgIds[i] = ids.nextId();
            claims.add(new GroupChatStore.Claim(w.key(), w.command().groupId(), msgIds[i], seq, w.hash()));
        }
        Map<GroupChatStore.SendKey, OffsetDateTime> claimed = store.claim(claims);
        if (claimed.size() < claims.size()) {
            if (passing.size() > 1) {
                throw new ClaimRace(); // rolls the claims back; each is written again alone
            }
            return answers; // null: a resend of a committed message, answered by the caller
        }
        List<Stored> stored = new ArrayList<>();
        for (int i : passing) {
            Write w = writes.get(i);
            GroupSendCommand c = w.command();
            stored.add(new Stored(c.groupId(), seqs[i], msgIds[i], c.system() ? 0 : c.sender(), c.sendId(), c.type(), w.body(),
                    c.quoteMsgId(), c.priority(), c.mentions(), c.mentionAll(), claimed.get(w.key()), w.fromConnection(),
                    c.system() ? null : c.sender()));
            answers.set(i, new Sent(c.sendId(), msgIds[i], seqs[i], claimed.get(w.key()), false));
        }
        store(stored, Map.of(), true);
        return answers;
    }

    /** A message to store, and who sent it (null: the system, whose cursor nothing moves). */
    record Stored(long groupId, long seq, long msgId, long senderUid, String sendId, String type, JsonObject body, Long quoteMsgId,
                  int priority, List<Long> mentions, boolean mentionAll, OffsetDateTime tm, String fromConnection, Long cursorOf) {
    }

    /**
     * Stores messages whose seqs were taken under their heads' locks: the heads move, the rows go in,
     * the senders' read cursors and the mentioned members' rows move, the events go to the outbox,
     * and the pushes are fired (after commit the gateway fans them out). {@code epochAdded}: member
     * changes per group in this transaction.
     */
    private Map<Long, long[]> store(List<Stored> stored, Map<Long, Integer> epochAdded, boolean offlinePush) {
        Map<Long, GroupChatStore.Advance> advances = new TreeMap<>();
        Map<Long, Integer> added = new HashMap<>();
        Map<Long, Long> mentionAll = new HashMap<>();
        List<GroupChatStore.MessageRow> rows = new ArrayList<>();
        List<Long[]> mediaRefs = new ArrayList<>(); // {media, group, seq, msgId} per message that names a stored file
        for (Stored s : stored) {
            added.merge(s.groupId(), 1, Integer::sum);
            Long media = ChatMedia.mediaIdOf(s.body());
            if (media != null) {
                mediaRefs.add(new Long[] {media, s.groupId(), s.seq(), s.msgId()});
            }
            if (s.mentionAll()) {
                mentionAll.merge(s.groupId(), s.seq(), Math::max);
            }
            rows.add(new GroupChatStore.MessageRow(s.groupId(), s.seq(), s.msgId(), s.senderUid(), s.sendId(), s.type(),
                    JsonText.of(s.body()), s.quoteMsgId(), s.priority(), s.mentions(), s.mentionAll()));
        }
        for (Stored s : stored) { // the last of each group names its newest message
            advances.put(s.groupId(), new GroupChatStore.Advance(s.groupId(), added.get(s.groupId()), s.msgId(), s.senderUid(),
                    ChatRules.preview(s.type(), s.body()), mentionAll.getOrDefault(s.groupId(), 0L),
                    epochAdded.getOrDefault(s.groupId(), 0), 0));
        }
        List<GroupChatStore.Advance> ranked = new ArrayList<>();
        advances.values().forEach(a -> ranked.add(new GroupChatStore.Advance(a.groupId(), a.added(), a.lastMsgId(), a.lastSenderUid(),
                a.preview(), a.mentionAllSeq(), a.epochAdded(), versions.next(VERSION_KEY))));
        Map<Long, long[]> after = store.advance(ranked);
        store.insertMessages(rows);
        if (!mediaRefs.isEmpty()) {
            mediaStore.insertGroup(ChatWriter.column(mediaRefs, 0), ChatWriter.column(mediaRefs, 1), ChatWriter.column(mediaRefs, 2),
                    ChatWriter.column(mediaRefs, 3));
        }
        // the sender read what it sent: its own cursor moves (one row per sender and group, in (group, uid) order)
        Map<List<Long>, Long> cursors = new TreeMap<>(java.util.Comparator.<List<Long>, Long>comparing(k -> k.get(0))
                .thenComparing(k -> k.get(1)));
        stored.stream().filter(s -> s.cursorOf() != null).forEach(s -> cursors.merge(List.of(s.groupId(), s.cursorOf()), s.seq(), Math::max));
        if (!cursors.isEmpty()) {
            List<long[]> moves = new ArrayList<>();
            cursors.forEach((k, seq) -> moves.add(new long[] {k.get(0), k.get(1), seq, versions.next(VERSION_KEY)}));
            store.moveReadCursors(moves);
        }
        for (Stored s : stored) {
            if (!s.mentions().isEmpty()) {
                int first = versions.next(VERSION_KEY);
                for (int i = 1; i < s.mentions().size(); i++) {
                    versions.next(VERSION_KEY);
                }
                store.mentioned(s.groupId(), s.mentions(), s.seq(), first);
            }
        }
        // the offline push: one row per group and batch, whatever the group's size (group changes are told live only)
        Map<Long, List<Stored>> byGroup = new TreeMap<>();
        if (offlinePush) {
            stored.forEach(s -> byGroup.computeIfAbsent(s.groupId(), g -> new ArrayList<>()).add(s));
        }
        byGroup.forEach((g, ofGroup) -> store.bufferOfflinePush(g, ofGroup.get(0).seq(), ofGroup.get(ofGroup.size() - 1).seq(),
                ofGroup.size(), ofGroup.stream().flatMap(s -> s.mentions().stream()).distinct().toList(),
                ofGroup.stream().anyMatch(Stored::mentionAll), settings.offlinePushDelay()));
        List<MessageEvents.Event> events = new ArrayList<>();
        List<GroupPush> toPush = new ArrayList<>();
        for (Stored s : stored) {
            JsonObject fields = fields(s.groupId(), s.seq(), s.msgId(), s.senderUid(), s.sendId(), s.type(), s.body(), s.priority(),
                    s.tm(), s.quoteMsgId(), s.mentions(), s.mentionAll()).build();
            events.add(new MessageEvents.Event(s.type(), s.msgId(), JsonText.of(fields)));
            toPush.add(new GroupPush(s.groupId(), s.seq(), "chatMsg", fields, s.senderUid(), s.mentions(), s.mentionAll(),
                    after.get(s.groupId())[1], s.fromConnection()));
        }
        outbox.publishAll(MessageEvents.envelopes(events));
        pushes.fire(new GroupPush.Batch(toPush));
        return after;
    }

    // ---- group events, in the group change's transaction ----

    /**
     * A group change as a system message in the group's sequence, and what it does to a member's
     * visibility: a join starts it after the join's message (the joiner sees its own join), a quit
     * or kick ends it at that message (the member sees why it is gone). A quit from a channel is
     * not announced: the member's visibility ends at the group's last message. Joins the group
     * change's transaction, whose group row lock comes before this head row's.
     */
    @Transactional(Transactional.TxType.MANDATORY)
    public void groupChanged(io.roost.group.GroupChanged change) {
        long g = change.groupId();
        if (change.type().equals("created")) {
            store.insertGroup(g);
        }
        GroupChatStore.Head head = store.lock(List.of(g)).get(g);
        if (head == null) {
            store.insertGroup(g); // a group older than group chat whose head was never made: it starts now
            head = store.lock(List.of(g)).get(g);
        }
        boolean membership = change.type().equals("joined") || change.removesTarget() || change.type().equals("created");
        boolean announced = !(change.type().equals("quit") && change.groupType().equals("channel"));
        long seq = head.lastSeq() + (announced ? 1 : 0);
        long member = change.type().equals("created") ? change.actor() : change.target() == null ? 0 : change.target();
        if (announced) {
            JsonObjectBuilder event = Jsonp.PROVIDER.createObjectBuilder().add("type", change.type())
                    .add("actor", Long.toString(change.actor()));
            if (change.target() != null) {
                event.add("target", Long.toString(change.target()));
            }
            if (change.detail() != null) {
                event.add("detail", change.detail());
            }
            JsonObject body = Jsonp.PROVIDER.createObjectBuilder().add("text", summary(change)).add("event", event).build();
            store(List.of(new Stored(g, seq, ids.nextId(), 0, "group-event-" + ids.nextId(), "system", body, null, 0, List.of(),
                    false, OffsetDateTime.now(), null, null)), membership ? Map.of(g, 1) : Map.of(), false);
        } else if (membership) {
            store.advance(List.of(new GroupChatStore.Advance(g, 0, head.lastMsgId() == null ? 0 : head.lastMsgId(),
                    head.lastSenderUid() == null ? 0 : head.lastSenderUid(), head.lastPreview(), 0, 1, versions.next(VERSION_KEY))));
        }
        if (change.type().equals("joined") || change.type().equals("created")) {
            long joinedSeq = change.type().equals("created") ? 0 : seq - 1;
            store.joined(g, member, joinedSeq, versions.next(VERSION_KEY));
            memberships.fire(new GroupMembership(g, member, GroupMembership.Change.JOINED, joinedSeq, null, false));
        } else if (change.removesTarget()) {
            store.left(g, member, seq, versions.next(VERSION_KEY));
            memberships.fire(new GroupMembership(g, member, GroupMembership.Change.LEFT, 0, seq, false));
        }
    }

    /** A group event's words, for lists and pushes (the event object says it for programs). */
    static String summary(io.roost.group.GroupChanged c) {
        String target = c.target() == null ? "" : " " + c.target();
        return switch (c.type()) {
            case "created" -> "The group was created by " + c.actor() + ".";
            case "joined" -> c.target() + " joined.";
            case "quit" -> c.target() + " left.";
            case "kicked" -> c.target() + " was removed by " + c.actor() + ".";
            case "admin_added" -> c.target() + " is an admin now.";
            case "admin_removed" -> c.target() + " is an admin no more.";
            case "owner_transferred" -> c.target() + " owns the group now.";
            case "info_changed" -> c.actor() + " changed the group's information.";
            case "muted" -> c.target() + " was muted by " + c.actor() + (c.detail() == null ? "." : " until " + c.detail() + ".");
            case "unmuted" -> c.target() + " was unmuted by " + c.actor() + ".";
            case "dissolved" -> "The group was dissolved.";
            default -> c.type() + target;
        };
    }

    // ---- reads, recalls, deletes, mutes ----

    /** Moves the reader's cursor to {@code seq}; 404 unless it has a state in the group, 400 past its last visible message. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public GroupMemberState read(long reader, long groupId, long seq) {
        GroupChatStore.Head head = store.head(groupId).orElseThrow(() -> GroupChat.noGroup(groupId));
        GroupMemberState m = store.member(groupId, reader).orElseThrow(() -> GroupChat.noGroup(groupId));
        if (seq > m.lastVisible(head.lastSeq())) {
            throw ProblemException.badRequest("cursor-past-end", "readSeq " + seq + " is past the last message you may see ("
                    + m.lastVisible(head.lastSeq()) + ").");
        }
        List<GroupMemberState> moved = store.moveReadCursors(List.<long[]>of(new long[] {groupId, reader, seq, versions.next(VERSION_KEY)}));
        return moved.isEmpty() ? m : moved.get(0);
    }

    /**
     * Recalls ({@code recall}) or deletes for everyone message {@code seq}, its content erased and its
     * row kept; the message as it was. The rules are the caller's ({@link GroupChat}); here: the head
     * locked first, then the message (a second recall waits, then finds it done and answers the same).
     */
    @Transactional // joins an operator's audit transaction, if there is one
    public GroupMessage erase(long groupId, long seq, boolean recall, long by, java.util.function.Consumer<GroupMessage> rules) {
        GroupChatStore.Head head = store.lock(List.of(groupId)).get(groupId);
        if (head == null) {
            throw GroupChat.noGroup(groupId);
        }
        GroupMessage m = store.lockMessage(groupId, seq)
                .orElseThrow(() -> ProblemException.notFound("No message " + seq + " in group " + groupId + "."));
        if (m.recalled() || m.deleted()) {
            return m; // done already: the same answer
        }
        rules.accept(m);
        store.erase(groupId, seq, recall);
        store.touch(groupId, recall ? "[recalled]" : "[deleted]", seq, versions.next(VERSION_KEY));
        JsonObject fields = Jsonp.PROVIDER.createObjectBuilder().add("group", Long.toString(groupId)).add("seq", seq)
                .add("msgId", Long.toString(m.msgId())).add("by", Long.toString(by)).add("kind", recall ? "recall" : "delete").build();
        outbox.publish(ChatService.EVENTS_TOPIC, recall ? "recall" : "delete", Long.toString(m.msgId()), JsonText.of(fields));
        pushes.fire(new GroupPush.Batch(List.of(new GroupPush(groupId, seq, "chatRecall", fields, by, List.of(), false,
                head.memberEpoch(), null))));
        return new GroupMessage(m.groupId(), m.seq(), m.msgId(), m.senderUid(), m.sendId(), m.type(), null, null, m.priority(),
                m.mentions(), m.mentionAll(), m.createdAt(), recall, !recall);
    }

    /** The member mutes or unmutes the group for itself (no pushes but mentions); 404 unless a member. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void setMuted(long uid, long groupId, boolean muted) {
        if (!store.setMuted(groupId, uid, muted, versions.next(VERSION_KEY))) {
            throw GroupChat.noGroup(groupId);
        }
        memberships.fire(new GroupMembership(groupId, uid, GroupMembership.Change.MUTED, 0, null, muted));
    }

    // ---- helpers ----

    private static Object resentOrConflict(Write w, GroupChatStore.SendRow row) {
        if (!Arrays.equals(w.hash(), row.bodyHash()) || row.groupId() != w.command().groupId()) {
            return ProblemException.conflict("send-id-conflict", "sendId " + w.command().sendId() + " was used for another message.");
        }
        return new Sent(w.command().sendId(), row.msgId(), row.seq(), row.createdAt(), true);
    }

    /** The stored answer to a resend of {@code w}, or 409 {@code send-id-conflict}. */
    Sent resent(Write w) {
        GroupChatStore.SendRow row = store.findSends(List.of(w.key())).get(w.key());
        if (row == null) {
            throw ProblemException.conflict("send-id-conflict", "sendId " + w.command().sendId() + " is in flight.");
        }
        Object answer = resentOrConflict(w, row);
        if (answer instanceof ProblemException p) {
            throw p;
        }
        return (Sent) answer;
    }

    /** The message as devices ({@code chatMsg}) and the topic see it: ids as strings, the group named. */
    static JsonObjectBuilder fields(long groupId, long seq, long msgId, long senderUid, String sendId, String type, JsonObject body,
                                    int priority, OffsetDateTime tm, Long quoteMsgId, List<Long> mentions, boolean mentionAll) {
        JsonObjectBuilder b = Jsonp.PROVIDER.createObjectBuilder().add("group", Long.toString(groupId)).add("msgId", Long.toString(msgId))
                .add("seq", seq).add("senderUid", Long.toString(senderUid)).add("sendId", sendId).add("msgType", type)
                .add("priority", priority).add("sentAt", tm.toInstant().toEpochMilli());
        if (body != null) {
            b.add("body", body);
        }
        if (quoteMsgId != null) {
            b.add("quote", Long.toString(quoteMsgId));
        }
        if (!mentions.isEmpty()) {
            JsonArrayBuilder a = Jsonp.PROVIDER.createArrayBuilder();
            mentions.forEach(u -> a.add(Long.toString(u)));
            b.add("mentions", a);
        }
        if (mentionAll) {
            b.add("mentionAll", true);
        }
        return b;
    }

    /** A stored message's push fields (an again push reads it back). */
    static JsonObject fields(GroupMessage m) {
        JsonObjectBuilder b = fields(m.groupId(), m.seq(), m.msgId(), m.senderUid(), m.sendId(), m.type(), m.body(), m.priority(),
                m.createdAt(), m.quoteMsgId(), m.mentions(), m.mentionAll());
        if (m.recalled()) {
            b.add("recalled", true);
        }
        if (m.deleted()) {
            b.add("deleted", true);
        }
        return b.build();
    }

    /** The rules a group's sends meet, read once per group and batch under the head's lock. */
    record Checks(GroupService.SendContext group, GroupChatStore.Head head, Map<Long, GroupMemberState> members,
                  Map<Long, GroupService.SendRight> rights) {

        void check(GroupSendCommand c, OffsetDateTime now, GroupChatStore store) {
            GroupMemberState m = members.get(c.sender());
            GroupService.SendRight right = rights.get(c.sender());
            boolean member = m != null && m.current() && right != null;
            if (group == null || head == null || (!member && !c.system() && group.visibility().equals("hidden"))) {
                throw GroupChat.noGroup(c.groupId());
            }
            if (!group.status().equals("ACTIVE")) {
                throw ProblemException.conflict("group-dissolved", "Group " + c.groupId() + " is dissolved: its history is read-only.");
            }
            if (!c.system()) {
                GroupRules.checkSender(group.type(), member ? right.role() : null, member && right.mutedAt(now), c.groupId());
            }
            if (c.mentionAll() && !c.system() && !GroupRules.mayMentionAll(right.role())) {
                throw new ProblemException(403, "mention-all-forbidden", "Forbidden", "Only the owner and admins mention everyone.");
            }
            for (long u : c.mentions()) {
                GroupMemberState mentioned = members.get(u);
                if (mentioned == null || !mentioned.current() || !rights.containsKey(u)) {
                    throw ProblemException.badRequest("invalid-mention", "User " + u + " is not a member of group " + c.groupId() + ".");
                }
            }
            if (c.quoteMsgId() != null) {
                Optional<GroupMessage> quoted = store.messageById(c.groupId(), c.quoteMsgId());
                if (quoted.isEmpty() || quoted.get().recalled() || quoted.get().deleted() || (m != null && !m.sees(quoted.get().seq()))) {
                    throw ProblemException.badRequest("invalid-quote", "The quoted message is not one of this group's you may see.");
                }
            }
        }
    }
}
