package io.roost.chat.group;

import io.roost.chat.ChatMedia;
import io.roost.chat.ChatRules;
import io.roost.chat.ChatSettings;
import io.roost.chat.ChatSync;
import io.roost.chat.BodyFilter;
import io.roost.chat.Sent;
import io.roost.chat.store.GroupChatStore;
import io.roost.group.GroupService;
import io.roost.platform.api.Page;
import io.roost.platform.problem.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Group chat by read diffusion, its public face. A send is checked first (sendId, type, body,
 * size, mentions, the content filter), then written with the sends that arrive with it in one
 * transaction ({@link GroupSendQueue}): the group's head row is locked, the sender's right to send
 * read under that lock (member now, a role that may send in this kind of group, not muted, the
 * group not dissolved), the sendId claimed, the one message row inserted and the sender's cursor
 * moved. It answers after commit. Reads apply each member's visibility: the messages after its
 * join, up to its leave.
 */
@ApplicationScoped
public class GroupChat {

    /** The most items a page holds. */
    public static final int MAX_LIMIT = 100;
    /** The most members one message mentions by name. */
    public static final int MAX_MENTIONS = 100;
    static final long WAIT_SECONDS = io.roost.chat.ChatService.WAIT_SECONDS;

    @Inject
    GroupChatStore store;

    @Inject
    GroupChatWriter writer;

    @Inject
    GroupSendQueue queue;

    @Inject
    GroupService groups;

    @Inject
    ChatSettings settings;

    @Inject
    ChatMedia media;

    @Inject
    BodyFilter bodies;

    /** 404 as for a group that does not exist: the answer a hidden group's outsider gets too. */
    static ProblemException noGroup(long groupId) {
        return ProblemException.notFound("No group " + groupId);
    }

    // ---- sends ----

    public Sent send(GroupSendCommand c) {
        return io.roost.chat.ChatService.await(sendAsync(c, null),
                "The message was not stored within " + WAIT_SECONDS + " s; send it again (same sendId).");
    }

    /**
     * Sends without holding the caller's thread; completes after commit with the answer, or with
     * the {@link ProblemException} that refused it. {@code fromConnection}: the device connection
     * it came from, which gets the answer and no push.
     */
    public CompletableFuture<Sent> sendAsync(GroupSendCommand c, String fromConnection) {
        try {
            ChatRules.checkSendId(c.sendId());
            ChatRules.checkType(c.type());
            ChatRules.checkPriority(c.priority());
            if (c.system() != c.type().equals("system")) {
                throw ProblemException.forbidden("System messages come from back ends, as the system.");
            }
            if (c.deviceKey() == null || c.deviceKey().isBlank() || c.deviceKey().length() > 80) {
                throw new IllegalArgumentException("a device key of 1 to 80 characters is required");
            }
            if (c.mentions().size() > MAX_MENTIONS || c.mentions().stream().distinct().count() != c.mentions().size()) {
                throw ProblemException.badRequest("invalid-mention", "mentions are at most " + MAX_MENTIONS + " distinct members.");
            }
            ChatRules.checkBody(c.type(), c.body(), settings.maxBodyBytes());
            JsonObject body = media.resolve(c.sender(), c.type(), bodies.filtered(c.sender(), c.groupId(), c.body(), c.system()));
            return queue.submit(new GroupChatWriter.Write(c, body, hash(c), fromConnection));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The hash a resend is compared by: everything the sender chose. */
    static byte[] hash(GroupSendCommand c) {
        String canonical = "group:" + c.groupId() + "\n" + c.type() + "\n" + c.system() + "\n"
                + io.roost.platform.json.JsonText.of(c.body()) + "\n" + c.quoteMsgId() + "\n" + c.priority() + "\n" + c.mentions()
                + "\n" + c.mentionAll();
        return ChatRules.sha256(canonical);
    }

    // ---- reads ----

    /**
     * What {@code reader} may read of the group: its own state (a current or past member), or for an
     * operator ({@code operator}: admin or service callers) every message. 404 for anyone else, as
     * for a group that does not exist.
     */
    GroupMemberState reader(long reader, long groupId, boolean operator) {
        if (operator) {
            store.head(groupId).orElseThrow(() -> noGroup(groupId));
            return new GroupMemberState(groupId, reader, 0, null, 0, 0, false);
        }
        return store.member(groupId, reader).orElseThrow(() -> noGroup(groupId));
    }

    /**
     * A page of the group's messages that {@code reader} may see, ascending by seq: after
     * {@code afterSeq} ({@code next}: the last seq), or before {@code beforeSeq} (or the newest;
     * {@code next}: the first seq, to page further back).
     */
    public Page<GroupMessage> messages(long reader, boolean operator, long groupId, Long afterSeq, Long beforeSeq, int limit) {
        Page.checkLimit(limit, MAX_LIMIT);
        if (afterSeq != null && beforeSeq != null) {
            throw ProblemException.badRequest("one-cursor", "Give after or before, not both.");
        }
        GroupMemberState m = reader(reader, groupId, operator);
        long last = m.lastVisible(store.head(groupId).map(GroupChatStore.Head::lastSeq).orElse(0L));
        if (afterSeq != null) {
            checkCursor(afterSeq, last);
            return Page.of(store.after(groupId, Math.max(afterSeq, m.joinedSeq()), last, limit + 1), limit, x -> x,
                    x -> Long.toString(x.seq()));
        }
        long before = beforeSeq == null ? last + 1 : Math.min(beforeSeq, last + 1);
        List<GroupMessage> newestFirst = store.newestBetween(groupId, m.joinedSeq(), before, limit + 1);
        List<GroupMessage> items = new ArrayList<>(newestFirst.subList(0, Math.min(limit, newestFirst.size())));
        Collections.reverse(items);
        return new Page<>(items, newestFirst.size() > limit ? Long.toString(items.get(0).seq()) : null);
    }

    private static void checkCursor(long seq, long last) {
        if (seq > last) {
            throw ProblemException.badRequest("cursor-past-end", "seq " + seq + " is past the last message you may see (" + last + ").");
        }
    }

    /**
     * A device's catch-up of the group after the highest seq it holds without a gap: the newest
     * {@code limit} messages it may see after {@code afterSeq}, ascending, and the gap marker
     * ({@code not-loaded}: page back with {@code before}) when more are missing. The head is read
     * first, so a message committed meanwhile can only add to the answer.
     */
    public GroupSync sync(long reader, long groupId, long afterSeq, int limit) {
        Page.checkLimit(limit, MAX_LIMIT);
        GroupMemberState m = reader(reader, groupId, false);
        long last = m.lastVisible(store.head(groupId).map(GroupChatStore.Head::lastSeq).orElse(0L));
        checkCursor(afterSeq, last);
        long from = Math.max(afterSeq, m.joinedSeq()); // what came before the member's join is not missing: it was never its
        List<GroupMessage> newestFirst = store.newestBetween(groupId, from, last + 1, limit + 1);
        boolean more = newestFirst.size() > limit;
        List<GroupMessage> items = new ArrayList<>(newestFirst.subList(0, Math.min(limit, newestFirst.size())));
        Collections.reverse(items);
        ChatSync.Gap gap = ChatSync.gap(from, items.isEmpty() ? last + 1 : items.get(0).seq(), more);
        return new GroupSync(items, gap, last);
    }

    /** The reader's state in the group and the group's last seq it may see; 404 unless it has one. */
    public GroupStateView state(long reader, long groupId) {
        GroupChatStore.Head head = store.head(groupId).orElseThrow(() -> noGroup(groupId));
        return GroupStateView.of(reader(reader, groupId, false), head);
    }

    /** The reader read everything up to {@code seq}; its state after. */
    public GroupStateView read(long reader, long groupId, long seq) {
        if (seq < 0) {
            throw ProblemException.badRequest("invalid-seq", "readSeq is a message seq, 0 or more.");
        }
        GroupMemberState m = writer.read(reader, groupId, seq);
        return GroupStateView.of(m, store.head(groupId).orElseThrow());
    }

    /**
     * Who read message {@code seq} (read receipts), for a member who may see it, in groups of at
     * most {@code ROOST_GROUP_RECEIPTS_MAX_MEMBERS} members: how many, and a page of them by uid.
     * 409 {@code receipts-unavailable} in a larger group.
     */
    public ReadersView readers(long reader, boolean operator, long groupId, long seq, Long after, int limit) {
        Page.checkLimit(limit, GroupService.MAX_LIMIT);
        GroupMemberState m = reader(reader, groupId, operator);
        GroupService.Group g = groups.find(groupId).orElseThrow(() -> noGroup(groupId));
        if (!m.sees(seq) || seq > m.lastVisible(store.head(groupId).orElseThrow().lastSeq())) {
            throw ProblemException.notFound("No message " + seq + " in group " + groupId + ".");
        }
        if (g.memberCount() > settings.groupReceiptsMaxMembers()) {
            throw ProblemException.conflict("receipts-unavailable", "Read receipts are kept for groups of at most "
                    + settings.groupReceiptsMaxMembers() + " members.");
        }
        List<Long> uids = store.readers(groupId, seq, after == null ? Long.MIN_VALUE : after, limit + 1);
        Page<String> page = Page.of(uids, limit, u -> Long.toString(u), s -> s);
        return new ReadersView(seq, store.readerCount(groupId, seq), page.items(), page.next());
    }

    // ---- recall, delete, mute ----

    /**
     * Recalls message {@code seq}: its sender within {@code ROOST_CHAT_RECALL_WINDOW}, the owner and
     * admins any member's at any age; an operator ({@code operator}) anyone's. Devices online get a
     * {@code chatRecall}; history keeps the seq with the marker.
     */
    public GroupMessage recall(long caller, boolean operator, long groupId, long seq) {
        return erase(caller, operator, groupId, seq, true);
    }

    /** Deletes message {@code seq} for everyone: the owner and admins (or an operator). */
    public GroupMessage delete(long caller, boolean operator, long groupId, long seq) {
        return erase(caller, operator, groupId, seq, false);
    }

    private GroupMessage erase(long caller, boolean operator, long groupId, long seq, boolean recall) {
        GroupMemberState m = reader(caller, groupId, operator);
        if (!operator && !m.current()) {
            throw noGroup(groupId);
        }
        GroupService.Role role = operator ? null : groups.roleOf(groupId, caller).orElseThrow(() -> noGroup(groupId));
        java.time.Duration window = settings.recallWindow();
        return writer.erase(groupId, seq, recall, caller, message -> {
            if (operator || GroupRules.moderates(role)) {
                return;
            }
            if (!recall || message.senderUid() != caller) {
                throw new ProblemException(403, recall ? "not-sender" : "forbidden", "Forbidden", recall
                        ? "Only its sender, the owner or an admin recalls a message." : "Only the owner or an admin deletes a message for everyone.");
            }
            if (message.createdAt().plus(window).isBefore(OffsetDateTime.now())) {
                throw ProblemException.conflict("recall-window-passed", "A message can be recalled within " + window.toSeconds() + " s.");
            }
        });
    }

    /** The member mutes or unmutes the group for itself: no live or offline push but mentions, still unread. */
    public void setMuted(long uid, long groupId, boolean muted) {
        writer.setMuted(uid, groupId, muted);
    }

    // ---- the gateway's side: pushes again, the online index ----

    /** A stored message's {@code chatMsg} fields, to push it again. */
    public Optional<JsonObject> pushAgain(long groupId, long seq) {
        return store.message(groupId, seq).map(GroupChatWriter::fields);
    }

    /** The groups the user is a member of now, with its state in each and their last seqs: a login's one read for the online index. */
    public List<OnlineGroup> currentGroupsOf(long uid) {
        return store.currentGroupsOf(uid);
    }

    /** The states of these users in the group (a node refreshes its view of who is still a member). */
    public Map<Long, GroupMemberState> members(long groupId, Collection<Long> uids) {
        return store.members(groupId, uids);
    }

    /** The nodes that hold a member device of each of these groups. */
    public Map<Long, List<Integer>> nodesOf(Collection<Long> groupIds) {
        return store.nodesOf(groupIds);
    }

    /** Node {@code nodeId} holds member devices of these groups now. */
    public void publish(int nodeId, Collection<Long> groupIds) {
        if (!groupIds.isEmpty()) {
            store.publish(nodeId, groupIds);
        }
    }

    /** Node {@code nodeId} holds no member device of these groups any more. */
    public void unpublish(int nodeId, Collection<Long> groupIds) {
        if (!groupIds.isEmpty()) {
            store.unpublish(nodeId, groupIds);
        }
    }

    /** Node {@code nodeId} starts with no device: whatever its previous run published goes. */
    public int nodeStarted(int nodeId) {
        return store.forgetNode(nodeId);
    }

    /** Forgets what the nodes not among {@code alive} published (they died or stopped). */
    public int forgetNodesExcept(Collection<Integer> alive) {
        return store.forgetNodesExcept(alive);
    }
}
