package io.roost.chat;

import io.roost.chat.store.ChatStore;
import io.roost.chat.store.SendBatchStore;
import io.roost.identity.AccountService;
import io.roost.platform.batch.GroupCommit;
import io.roost.platform.json.Jsonp;
import io.roost.platform.problem.ProblemException;
import io.roost.social.SocialGraph;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Sends by group commit ({@link GroupCommit}): the messages that arrive together are written in
 * one transaction ({@link ChatWriter#writeAll}), so a busy node pays a commit per batch, not per
 * message, and each sender still gets its answer only after its message is committed. The checks
 * that read other modules' rows (both users active, no block either way) run inside the claim's
 * statement, so a batch's checks cost no round trip of their own on the writer's serial path; a
 * message a check refuses goes through every check in order (one query each), so its answer names
 * the first that fails: both users active, no block either way, the quote visible, the content
 * filter. In follow mode a stranger whose limit is used up is refused next, for the whole batch in
 * one statement ({@link StrangerLimit#usedUp}). A stored sendId is answered with its stored answer
 * whatever the checks say now (what was accepted stays accepted).
 */
@ApplicationScoped
public class SendQueue {

    private static final Logger LOG = Logger.getLogger(SendQueue.class.getName());
    /** One writer: messages that arrive while a batch commits make the next batch bigger. */
    static final int WRITERS = 1;
    static final int BATCH_MAX = 500;
    /**
     * Messages waiting for a batch, at most: 3–4 s of a saturated two-core node's throughput
     * (5,000–6,000 messages/s, docs/benchmarks.md). Beyond it a send is refused at once (503
     * {@code service-unavailable}; the client sends again, same sendId), so an overload shows as
     * refusals rather than as a heap full of queued bodies.
     */
    static final int CAPACITY = 20_000;
    /**
     * Under a stream of sends, a batch at most this often. Back-to-back commits of a few messages
     * each cost ten statements and a commit per handful of messages, and that overhead, not the
     * rows, filled the CPU at moderate rates; a message after a quiet spell still goes at once.
     */
    static final Duration PACING = Duration.ofMillis(5);

    /** A message whose stateless checks passed, waiting for its batch. */
    record Pending(SendCommand command, byte[] hash, String fromConnection, CompletableFuture<Sent> done) {

        SendBatchStore.SendKey key() {
            return SendQueue.key(command);
        }
    }

    @Inject
    ChatWriter writer;

    @Inject
    ChatStore store;

    @Inject
    SendBatchStore batchStore;

    @Inject
    AccountService accounts;

    @Inject
    SocialGraph graph;

    @Inject
    BodyFilter bodies;

    @Inject
    StrangerLimit strangers;

    @Inject
    ChatMeters meters;

    @Resource
    ManagedThreadFactory threads;

    private final GroupCommit<Pending> queue = new GroupCommit<>("chat-send", CAPACITY, () -> BATCH_MAX, PACING, this::apply);

    @PostConstruct
    void start() {
        meters.sendQueue(queue);
        queue.start(threads, WRITERS);
    }

    @PreDestroy
    void stop() {
        queue.stop();
    }

    /** Queues a checked message; the answer completes after its commit (or with the ProblemException that refused it). */
    CompletableFuture<Sent> submit(SendCommand c, byte[] hash, String fromConnection) {
        Pending p = new Pending(c, hash, fromConnection, new CompletableFuture<>());
        enqueue(p);
        return p.done;
    }

    /** A message's sendId key. */
    static SendBatchStore.SendKey key(SendCommand c) {
        return new SendBatchStore.SendKey(c.sender(), c.deviceKey(), c.sendId());
    }

    private void apply(List<Pending> batch) {
        try {
            // one message per sendId in a batch; a second one waits for the first's answer
            Map<SendBatchStore.SendKey, Pending> first = new LinkedHashMap<>();
            List<Pending> again = new ArrayList<>();
            for (Pending p : batch) {
                if (first.putIfAbsent(p.key(), p) != null) {
                    again.add(p);
                }
            }
            Map<Pending, ChatWriter.Write> passed = new IdentityHashMap<>();
            List<Pending> refusedHere = new ArrayList<>();
            for (Pending p : first.values()) {
                try {
                    passed.put(p, checkedHere(p));
                } catch (ProblemException e) {
                    refusedHere.add(p);
                }
            }
            passed.putAll(checkInOrder(refusedHere));
            Set<List<Long>> usedUp = strangers.usedUp(passed.keySet().stream().map(Pending::command).toList());
            Map<Pending, ProblemException> overLimit = new LinkedHashMap<>();
            List<Pending> writing = new ArrayList<>();
            List<ChatWriter.Write> writes = new ArrayList<>();
            for (Pending p : first.values()) { // in arrival order: a device's messages take their seqs in the order it sent them
                if (passed.containsKey(p) && usedUp.contains(List.of(p.command.sender(), p.command.peer()))) {
                    overLimit.put(p, strangers.refusal());
                } else if (passed.containsKey(p)) {
                    writing.add(p);
                    writes.add(passed.get(p));
                }
            }
            refuse(overLimit);
            write(writing, writes);
            for (Pending p : again) {
                first.get(p.key()).done.whenComplete((sent, failure) -> {
                    if (failure != null) {
                        p.done.completeExceptionally(failure);
                    } else {
                        answerResend(p);
                    }
                });
            }
        } catch (RuntimeException e) {
            batch.forEach(p -> p.done.completeExceptionally(e));
        }
    }

    /**
     * Every check in its order, one query each for the whole batch: for the messages a check
     * refused on the fast path (here, or in the claim's statement), so that the answer names the
     * first check that fails. A refused message completes with its problem here, or with its stored
     * answer if it is a resend of a stored message: what was accepted stays accepted (a block, a
     * disabled account or a new word on the list since then does not turn a stored message's
     * resend into an error). Returns the messages that pass with their writes, in their order (the
     * rows changed since the fast path refused them).
     */
    private Map<Pending, ChatWriter.Write> checkInOrder(List<Pending> pending) {
        if (pending.isEmpty()) {
            return Map.of();
        }
        Set<Long> uids = new HashSet<>();
        Set<List<Long>> pairs = new HashSet<>();
        for (Pending p : pending) {
            uids.add(p.command.sender());
            uids.add(p.command.peer());
            if (!p.command.system()) {
                pairs.add(pair(p.command));
            }
        }
        Set<Long> active = accounts.activeAmong(uids);
        Set<List<Long>> blocked = graph.blockedEitherWay(pairs);
        Map<Pending, ChatWriter.Write> writes = new LinkedHashMap<>();
        Map<Pending, ProblemException> refused = new LinkedHashMap<>();
        for (Pending p : pending) {
            try {
                writes.put(p, checked(p, active, blocked));
            } catch (ProblemException e) {
                refused.put(p, e);
            }
        }
        refuse(refused);
        return writes;
    }

    /**
     * Completes each message with its problem, or with its stored answer if it is a resend of a
     * stored message (one query for all of them).
     */
    private void refuse(Map<Pending, ProblemException> refused) {
        if (refused.isEmpty()) {
            return;
        }
        Map<SendBatchStore.SendKey, ChatStore.SendRow> stored = batchStore.findSends(refused.keySet().stream().map(Pending::key).toList());
        refused.forEach((p, problem) -> {
            ChatStore.SendRow resend = stored.get(p.key());
            try {
                if (resend == null) {
                    throw problem;
                }
                p.done.complete(ChatWriter.resent(p.command, p.hash, resend));
            } catch (ProblemException e) {
                p.done.completeExceptionally(e);
            }
        });
    }

    /** One message through the checks, in their order; its write, or the ProblemException that refuses it. */
    private ChatWriter.Write checked(Pending p, Set<Long> active, Set<List<Long>> blocked) {
        SendCommand c = p.command;
        for (long uid : new long[] {c.sender(), c.peer()}) {
            if (!active.contains(uid)) {
                throw ProblemException.notFound("No user " + uid);
            }
        }
        if (!c.system() && blocked.contains(pair(c))) {
            throw new ProblemException(403, "blocked", "Forbidden", "One of you blocks the other; nothing was sent.");
        }
        return checkedHere(p);
    }

    /**
     * The checks after those two, made here (the quote, the content filter): its write, or the
     * ProblemException that refuses it. Both users active and no block either way are checked in
     * the claim's statement ({@link ChatWriter#writeAll}), which costs no round trip of its own.
     */
    private ChatWriter.Write checkedHere(Pending p) {
        SendCommand c = p.command;
        if (c.quoteMsgId() != null && !store.visible(c.sender(), c.peer(), c.quoteMsgId())) {
            throw ProblemException.badRequest("invalid-quote", "The quoted message is not in this conversation (or you deleted it).");
        }
        return new ChatWriter.Write(c, bodies.filtered(c.sender(), c.peer(), c.body(), c.system()), p.hash, p.fromConnection);
    }

    private static List<Long> pair(SendCommand c) {
        return List.of(Math.min(c.sender(), c.peer()), Math.max(c.sender(), c.peer()));
    }

    /**
     * One transaction for the batch; if it fails (one message's problem, a lost connection), each
     * message again in a transaction of its own, so one cannot fail the others.
     */
    private void write(List<Pending> writing, List<ChatWriter.Write> writes) {
        if (writing.isEmpty()) {
            return;
        }
        try {
            complete(writing, writer.writeAll(writes));
        } catch (Exception e) { // also the checked HeuristicMixedException of a commit on a dying connection
            if (writing.size() == 1) {
                writing.get(0).done.completeExceptionally(e);
                return;
            }
            LOG.log(Level.FINE, "send batch of " + writing.size() + " failed, writing one by one", e);
            for (int i = 0; i < writing.size(); i++) {
                try {
                    complete(List.of(writing.get(i)), writer.writeAll(List.of(writes.get(i))));
                } catch (Exception single) {
                    writing.get(i).done.completeExceptionally(single);
                }
            }
        }
    }

    /** The answers of a committed {@link ChatWriter#writeAll}, in order. */
    private void complete(List<Pending> writing, List<Sent> answers) {
        List<Pending> refused = new ArrayList<>();
        int stored = 0;
        for (int i = 0; i < writing.size(); i++) {
            if (answers.get(i) == ChatWriter.REFUSED) {
                refused.add(writing.get(i));
            } else if (answers.get(i) != null) {
                stored += answers.get(i).resent() ? 0 : 1;
                writing.get(i).done.complete(answers.get(i));
            } else {
                answerResend(writing.get(i)); // another transaction claimed this sendId first and committed
            }
        }
        meters.sent(stored);
        // refused in the claim's statement: the checks in order name the problem (or find a stored answer)
        checkInOrder(refused).keySet().forEach(this::enqueue); // passes after all (a row changed in between): a later batch
    }

    /** Queues a message for a batch, or refuses it at once with 503 if the queue is full. */
    private void enqueue(Pending p) {
        if (!queue.offer(p)) {
            p.done.completeExceptionally(new ProblemException(503, "service-unavailable", "Service Unavailable",
                    "Too many messages are waiting to be stored; send again shortly."));
        }
    }

    private void answerResend(Pending p) {
        try {
            SendCommand c = p.command;
            p.done.complete(ChatWriter.resent(c, p.hash, store.findSend(c.sender(), c.deviceKey(), c.sendId())
                    .orElseThrow(() -> ProblemException.conflict("send-id-conflict", "sendId " + c.sendId() + " is in flight."))));
        } catch (RuntimeException e) {
            p.done.completeExceptionally(e);
        }
    }
}
