package io.roost.chat;

import io.roost.chat.store.ChatStore;
import io.roost.chat.store.GroupChatStore;
import io.roost.identity.AccountService;
import io.roost.platform.api.Page;
import io.roost.platform.problem.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;

/**
 * One-to-one chat, the module's public face. A send is checked first (sendId, type, body, size,
 * recipient active, no block either way, the quote visible, the content filter) and then written by
 * write diffusion, batched with the messages that arrive with it ({@link SendQueue}) into one
 * transaction ({@link ChatWriter}): the conversation's seq, both timeline rows, both conversation
 * rows, the outbox event and the push. It answers after commit, so an answer means durable. A resend of a stored sendId gets the stored
 * answer and writes nothing; the same sendId with another content is 409 {@code send-id-conflict}.
 */
@ApplicationScoped
public class ChatService {

    public static final String EVENTS_TOPIC = "roost-chat-events";

    /** How long a synchronous send or read report waits for its batch's commit. */
    public static final long WAIT_SECONDS = 30;

    /** The most items a page holds. */
    public static final int MAX_LIMIT = 100;

    private static final Logger LOG = Logger.getLogger(ChatService.class.getName());

    @Inject
    ChatMedia media;

    @Inject
    ChatStore store;

    @Inject
    ChatWriter writer;

    @Inject
    SendQueue queue;

    @Inject
    ChatSettings settings;

    @Inject
    AccountService accounts;

    @Inject
    DeliveredCursors deliveredCursors;

    @Inject
    ReadQueue reads;

    @Inject
    OfflinePushes offline;

    @Inject
    ChatRecalls recalls;

    @Inject
    io.roost.chat.store.GroupChatStore groupStore;

    /** Sends (or answers a resend); returns after commit. */
    public Sent send(SendCommand c) {
        return await(sendAsync(c), "The message was not stored within " + WAIT_SECONDS + " s; send it again (same sendId).");
    }

    /**
     * Waits for a queued operation's commit (a send, a read report; one-to-one or group), at most
     * {@link #WAIT_SECONDS}; its refusal or failure is thrown as it is, a timeout as 503.
     */
    public static <T> T await(CompletableFuture<T> done, String timedOut) {
        try {
            return done.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a commit", e);
        } catch (TimeoutException e) {
            throw new ProblemException(503, "service-unavailable", "Service Unavailable", timedOut);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    /**
     * Sends without holding the caller's thread: the checks that need no database run now (a bad
     * message fails at once, with nothing queued), the rest in the message's batch; the stage
     * completes after commit with the answer, or with the {@link ProblemException} that refused it.
     */
    public CompletableFuture<Sent> sendAsync(SendCommand c) {
        return sendAsync(c, null);
    }

    /**
     * A send from a device connection ({@code fromConnection}): that connection gets the answer,
     * so the message is pushed to every other live device of both participants but not to it.
     */
    public CompletableFuture<Sent> sendAsync(SendCommand c, String fromConnection) {
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
            if (c.sender() == c.peer()) {
                throw ProblemException.badRequest("self-message", "A message goes to someone else.");
            }
            ChatRules.checkBody(c.type(), c.body(), settings.maxBodyBytes());
            byte[] hash = ChatRules.hash(c); // what the sender chose, before the server describes its file
            JsonObject body = media.resolve(c.sender(), c.type(), c.body());
            SendCommand stored = body == c.body() ? c : new SendCommand(c.sender(), c.peer(), c.deviceKey(), c.sendId(), c.type(), body,
                    c.quoteMsgId(), c.priority(), c.system());
            return queue.submit(stored, hash, fromConnection);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The owner's side of the conversation with {@code peer}, if they have exchanged a message. */
    public Optional<Conversation> conversation(long owner, long peer) {
        return store.conversation(owner, peer);
    }

    /**
     * The owner's conversations changed after sync version {@code since}, in version order;
     * {@code next} is a version. Only versions below the sync horizon are handed out
     * ({@link SyncVersions}): when a change is above it, a transaction that began earlier is still
     * running and may yet commit a smaller version, so the read is repeated after a short pause
     * until the horizon passes (write transactions take milliseconds), for at most
     * {@link #SETTLE_WAIT_MS}; then the page stops before the first unsettled change, which the
     * next sync gets.
     */
    public Page<Conversation> conversations(long owner, long since, int limit) {
        Page.checkLimit(limit, MAX_LIMIT);
        return settledPage(owner, () -> {
            ChatStore.Changes changes = store.conversationsSince(owner, since, limit + 1);
            return new Changed<>(changes.rows(), changes.horizon());
        }, Conversation::syncVersion, limit);
    }

    /**
     * The owner's one conversation list: its one-to-one conversations and its groups changed after
     * sync version {@code since}, in version order, with the same horizon rule as
     * {@link #conversations}: one-to-one rows and group entries take their versions from the
     * writing transactions' ids alike, so one version orders both.
     */
    public Page<ConversationView> conversationList(long owner, long since, int limit) {
        Page.checkLimit(limit, MAX_LIMIT);
        return settledPage(owner, () -> {
            ChatStore.Changes ones = store.conversationsSince(owner, since, limit + 1);
            GroupChatStore.Entries groups = groupStore.entriesSince(owner, since, limit + 1);
            List<ConversationView> merged = new ArrayList<>(ones.rows().size() + groups.rows().size());
            ones.rows().forEach(c -> merged.add(ConversationView.of(c)));
            groups.rows().forEach(e -> merged.add(ConversationView.of(e)));
            merged.sort(java.util.Comparator.comparingLong(ConversationView::syncVersion));
            return new Changed<>(merged.subList(0, Math.min(limit + 1, merged.size())), Math.min(ones.horizon(), groups.horizon()));
        }, ConversationView::syncVersion, limit);
    }

    /** Rows changed after a version, in version order, and the horizon of the snapshot they were read in. */
    private record Changed<T>(List<T> rows, long horizon) {
    }

    /**
     * A page of changes handing out only settled versions: read again after a short pause while a
     * change is above the horizon, for at most {@link #SETTLE_WAIT_MS}; then the page stops before
     * the first unsettled change, which the next sync gets.
     */
    private <T> Page<T> settledPage(long owner, java.util.function.Supplier<Changed<T>> read, java.util.function.ToLongFunction<T> version,
                                    int limit) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SETTLE_WAIT_MS);
        long pauseMs = 1;
        while (true) {
            Changed<T> changes = read.get();
            List<T> settled = SyncVersions.settled(changes.rows(), changes.horizon(), version);
            boolean done = settled.size() == changes.rows().size();
            if (!done && System.nanoTime() > deadline) {
                LOG.warning(() -> "conversations of " + owner + " from version " + version.applyAsLong(changes.rows().get(settled.size()))
                        + " held back: a transaction older than their change ran for more than " + SETTLE_WAIT_MS + " ms");
                done = true;
            }
            if (done || !pause(pauseMs)) {
                return Page.of(settled, limit, t -> t, t -> Long.toString(version.applyAsLong(t)));
            }
            pauseMs = Math.min(2 * pauseMs, 50);
        }
    }

    private static boolean pause(long ms) {
        try {
            Thread.sleep(ms);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** How long a sync waits at most for older transactions to end before it leaves their changes to the next. */
    static final long SETTLE_WAIT_MS = 1000;

    /**
     * A page of the owner's timeline with {@code peer}, ascending by seq, deleted messages as
     * tombstones. {@code afterSeq}: the next messages after it ({@code next}: the last seq);
     * {@code beforeSeq} (or neither: the newest): the messages just before it ({@code next}: the
     * first seq, to page further back). 404 if there is no such conversation (no message was ever
     * exchanged), as a read report or a sync of it answers.
     */
    public Page<ChatMessage> messages(long owner, long peer, Long afterSeq, Long beforeSeq, int limit) {
        Page.checkLimit(limit, MAX_LIMIT);
        if (afterSeq != null && beforeSeq != null) {
            throw ProblemException.badRequest("one-cursor", "Give after or before, not both.");
        }
        if (afterSeq != null) {
            return existing(owner, peer, Page.of(store.messagesAfter(owner, peer, afterSeq, limit + 1), limit, m -> m,
                    m -> Long.toString(m.seq())));
        }
        List<ChatMessage> newestFirst = store.messagesBefore(owner, peer, beforeSeq == null ? Long.MAX_VALUE : beforeSeq, limit + 1);
        List<ChatMessage> items = new ArrayList<>(newestFirst.subList(0, Math.min(limit, newestFirst.size())));
        Collections.reverse(items);
        return existing(owner, peer, new Page<>(items, newestFirst.size() > limit ? Long.toString(items.get(0).seq()) : null));
    }

    /** The page; an empty one only of a conversation there is (its row is asked only then). */
    private Page<ChatMessage> existing(long owner, long peer, Page<ChatMessage> page) {
        if (page.items().isEmpty() && store.conversation(owner, peer).isEmpty()) {
            throw noConversation(peer);
        }
        return page;
    }

    /** What every read of a conversation that does not exist answers: messages, sync, a read report. */
    static ProblemException noConversation(long peer) {
        return ProblemException.notFound("No conversation with " + peer + ".");
    }

    /** Deletes one message from the owner's timeline only (a tombstone stays); 404 if there is none. */
    public void deleteForMe(long owner, long peer, long seq) {
        writer.deleteForMe(owner, peer, seq);
    }

    // ---- delivery (the gateway's side of a push: acknowledgements, reads, the offline path) ----

    /**
     * An acknowledgement from a device of {@code owner}: it holds every message of its conversation
     * with {@code peer} up to {@code seq}. Moves the owner's delivered cursor with the
     * conversation's next send, or within the hold ({@link DeliveredCursors}); the peer gets a
     * delivered receipt after that commit. Nothing is answered.
     */
    public void acknowledged(long owner, long peer, long seq) {
        deliveredCursors.record(owner, peer, seq);
    }

    /** The reader read everything up to {@code seq} (on any of its devices); answered after commit. */
    public ReadState read(long reader, long peer, long seq) {
        return await(readAsync(reader, peer, seq, null), "The read report was not stored within " + WAIT_SECONDS + " s; report again.");
    }

    /**
     * A read report without holding the caller's thread, batched with the reports that arrive
     * with it; completes after commit with the reader's side (or 404 {@code not-found}). From a
     * device connection ({@code fromConnection}, null from REST): that connection has the new side
     * in its answer, so it is left out of the {@code chatRead} the reader's other devices get.
     */
    public CompletableFuture<ReadState> readAsync(long reader, long peer, long seq, String fromConnection) {
        if (seq < 0) {
            return CompletableFuture.failedFuture(ProblemException.badRequest("invalid-seq", "readSeq is a message seq, 0 or more."));
        }
        return reads.submit(reader, peer, seq, fromConnection);
    }

    /**
     * {@code count} messages of the recipient's conversation with {@code peer}, up to {@code seq},
     * reached none of the recipient's devices: they take the offline path (a coalesced push event).
     */
    public void undelivered(long recipient, long peer, long seq, int count) {
        offline.undelivered(recipient, peer, seq, count, false);
    }

    /**
     * One device of the recipient did not get {@code count} messages of the conversation with
     * {@code peer}, up to {@code seq} (its route was stale, or it did not acknowledge them): they
     * take the offline path, and messages another device of the recipient reported already count
     * once, not once per device.
     */
    public void undeliveredToDevice(long recipient, long peer, long seq, int count) {
        offline.undelivered(recipient, peer, seq, count, true);
    }

    /**
     * The {@code chatMsg} fields of a stored message, to push it again to a device of its owner;
     * empty if the owner deleted it meanwhile (nothing left to deliver).
     */
    public Optional<JsonObject> pushAgain(long owner, long peer, long seq) {
        return store.message(owner, peer, seq).filter(m -> !m.deleted()).map(ChatWriter::event);
    }

    /**
     * A long-away device's catch-up of one conversation after the last seq it holds: the newest
     * {@code limit} messages after {@code afterSeq}, ascending, and a gap marker when they do not
     * start right after it ({@link ChatSync#of}); 404 if there is no such conversation. The conversation's last seq is read first, so a
     * message committed meanwhile can only add to the answer, never pass for a purged one.
     */
    public ChatSync sync(long owner, long peer, long afterSeq, int limit) {
        Page.checkLimit(limit, MAX_LIMIT);
        long lastSeq = store.conversation(owner, peer).map(Conversation::lastSeq).orElseThrow(() -> noConversation(peer));
        return ChatSync.of(afterSeq, store.newestAfter(owner, peer, afterSeq, limit + 1), limit, lastSeq);
    }

    /**
     * The sender recalls their message {@code seq} of the conversation with {@code peer}, within
     * {@code ROOST_CHAT_RECALL_WINDOW}: 404, 403 {@code not-sender}, 409 {@code recall-window-passed};
     * a recalled message again answers the same. Returns the message as it now is (after commit).
     */
    public ChatMessage recall(long sender, long peer, long seq) {
        return recall(sender, peer, seq, sender);
    }

    /**
     * The sender's recall, with the sender's rules (their own message, within the window), made
     * by {@code by}: the sender, or a back end or operator on the sender's behalf, whom the
     * recall's event and notice name.
     */
    public ChatMessage recall(long sender, long peer, long seq, long by) {
        return recalls.recall(sender, peer, seq, by, settings.recallWindow());
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
