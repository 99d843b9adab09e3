package io.roost.client.device;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A device's side of what it hears: pushes through the {@link Inbox} to the listener, in order
 * and once, each conversation's seq stored and acknowledged after the listener took it; the
 * catch-up after a login or a gap; receipts and presence kept forward only. Every listener call
 * goes through one {@link SerialExecutor}, so a device's calls come one at a time, in order.
 */
final class Delivery {

    /** How it reaches the server: requests and their answers, and frames that need none. */
    interface Wire {
        CompletableFuture<ObjectNode> submit(ObjectNode frame, boolean again);

        /** Sends {@code frame} on the live connection; dropped between connections. */
        void sendIfOnline(ObjectNode frame);
    }

    private static final int PAGE = 100;

    private final Wire wire;
    private final SyncStore store;
    private final DeviceListener listener;
    private final Executor executor;
    private final ScheduledExecutorService scheduler;
    private final Duration gapWait;
    private final Inbox inbox;
    private final SerialExecutor calls;

    // guarded by this
    private final Map<Conversation, CompletableFuture<Void>> catchingUp = new HashMap<>();
    private final Set<Conversation> gapChecks = new HashSet<>();

    // on the serial executor only
    private final Map<Conversation, Long> taken = new HashMap<>();
    private final Map<String, Long> presenceVersions = new HashMap<>();
    private final Map<Receipt.Kind, Map<Conversation, Long>> receipts = new HashMap<>();

    Delivery(Wire wire, SyncStore store, DeviceListener listener, Executor executor, ScheduledExecutorService scheduler,
             Duration gapWait) {
        this.wire = wire;
        this.store = store;
        this.listener = listener;
        this.executor = executor;
        this.scheduler = scheduler;
        this.gapWait = gapWait;
        this.inbox = new Inbox(store);
        this.calls = new SerialExecutor(executor);
    }

    /** Runs a listener call after those before it. */
    void call(Runnable listenerCall) {
        calls.execute(listenerCall);
    }

    /** The highest seq of {@code c} released to the listener without a gap. */
    long held(Conversation c) {
        return inbox.released(c);
    }

    /** The device's own send, stored at {@code seq}. */
    void sent(Conversation c, long seq) {
        release(inbox.sent(c, seq));
    }

    /** The connection ended: what was being caught up is caught up again after the next login. */
    synchronized void connectionEnded() {
        catchingUp.clear();
        gapChecks.clear();
    }

    /** After a login: the conversations changed since the stored version. */
    void catchUp() {
        catchUpFrom(store.syncVersion());
    }

    /** A {@code chatMsg} to the device of user {@code me}. */
    void pushed(ObjectNode f, String me) {
        Message m = Message.pushed(f, me);
        Conversation c = m.conversation();
        if (!c.isGroup()) {
            receipt(Receipt.Kind.DELIVERED, c, f.get("peerDeliveredSeq"));
        }
        Inbox.Release r = inbox.pushed(m);
        if (r.isEmpty() && m.seq() <= r.upTo()) {
            // a push again of what the device has: acknowledge it once the listener took it
            calls.execute(() -> ack(c, taken.getOrDefault(c, 0L)));
        }
        release(r);
        if (inbox.gap(c)) {
            checkGapLater(c);
        }
    }

    /** Hands released messages to the listener in order; then stores and acknowledges how far the conversation is held. */
    void release(Inbox.Release r) {
        Conversation c = r.conversation();
        List<Message> messages = r.messages();
        long upTo = r.upTo();
        calls.execute(() -> {
            for (Message m : messages) {
                try {
                    listener.onMessage(m);
                } catch (RuntimeException e) {
                    // the listener's fault: the message counts as taken
                }
                store.held(c, m.seq());
                taken.put(c, m.seq());
            }
            if (upTo > taken.getOrDefault(c, 0L) || !messages.isEmpty()) {
                store.held(c, upTo);
                taken.put(c, upTo);
                ack(c, upTo);
            }
        });
    }

    private void ack(Conversation c, long seq) {
        if (seq > 0) {
            wire.sendIfOnline(Frames.frame("chatAck").put(c.field(), c.id()).put("seq", seq));
        }
    }

    /** A push past a gap: the missing ones may still come (a group's node holds one that overtook another up to 1 s); if not, catch up. */
    private void checkGapLater(Conversation c) {
        synchronized (this) {
            if (!gapChecks.add(c)) {
                return;
            }
        }
        scheduler.schedule(() -> executor.execute(() -> {
            synchronized (this) {
                gapChecks.remove(c);
            }
            if (inbox.gap(c)) {
                catchUp(c);
            }
        }), gapWait.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The conversations changed since {@code since}, each caught up; then the version, once the listener took their messages. */
    void catchUpFrom(long since) {
        ObjectNode f = Frames.frame("chatOp").put("op", "conversations").put("since", since).put("limit", PAGE);
        wire.submit(f, false).thenCompose(ret -> {
            CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
            long version = since;
            for (JsonNode item : ret.path("items")) {
                Conversation c = "group".equals(item.path("kind").asText()) ? Conversation.group(item.path("group").asText())
                        : Conversation.user(item.path("peer").asText());
                if (item.path("lastSeq").asLong() > inbox.released(c)) {
                    all = all.thenCompose(x -> catchUp(c));
                }
                version = item.path("syncVersion").asLong(version);
            }
            long reached = version;
            JsonNode next = ret.get("next");
            return all.thenRun(() -> {
                calls.execute(() -> store.syncVersion(reached));
                if (next != null && !next.isNull()) {
                    catchUpFrom(Long.parseLong(next.asText()));
                }
            });
        });
    }

    /** Pages of {@code c}'s history after the seq released, until none is left. One at a time per conversation. */
    private CompletableFuture<Void> catchUp(Conversation c) {
        CompletableFuture<Void> done;
        synchronized (this) {
            CompletableFuture<Void> running = catchingUp.get(c);
            if (running != null) {
                return running;
            }
            done = new CompletableFuture<>();
            catchingUp.put(c, done);
        }
        page(c, done);
        return done.whenComplete((x, e) -> {
            synchronized (this) {
                catchingUp.remove(c, done);
            }
        });
    }

    private void page(Conversation c, CompletableFuture<Void> done) {
        ObjectNode f = Frames.frame("chatOp").put("op", "messages").put(c.field(), c.id()).put("after", inbox.released(c)).put("limit", PAGE);
        wire.submit(f, false).whenComplete((ret, e) -> {
            if (e != null) {
                done.complete(null); // not-found (no such conversation yet), or the connection ended: the next login catches up
                return;
            }
            List<Message> items = new ArrayList<>();
            ret.path("items").forEach(item -> items.add(Message.item(c, (ObjectNode) item)));
            release(inbox.caughtUp(c, items));
            if (items.size() == PAGE) {
                page(c, done);
            } else {
                done.complete(null);
            }
        });
    }

    void receipt(Receipt.Kind kind, Conversation c, JsonNode seqNode) {
        if (seqNode == null || !seqNode.canConvertToLong()) {
            return;
        }
        long seq = seqNode.asLong();
        calls.execute(() -> {
            Map<Conversation, Long> last = receipts.computeIfAbsent(kind, k -> new HashMap<>());
            if (seq > last.getOrDefault(c, 0L)) {
                last.put(c, seq);
                listener.onReceipt(new Receipt(kind, c, seq));
            }
        });
    }

    void presence(ObjectNode f) {
        List<Presence.Device> devices = new ArrayList<>();
        f.path("devices").forEach(d -> devices.add(new Presence.Device(d.path("deviceType").asText(), d.path("deviceId").asText())));
        Presence p = new Presence(f.path("uid").asText(), f.path("online").asBoolean(), List.copyOf(devices), f.path("version").asLong());
        calls.execute(() -> {
            if (p.version() > presenceVersions.getOrDefault(p.uid(), Long.MIN_VALUE)) {
                presenceVersions.put(p.uid(), p.version());
                listener.onPresence(p);
            }
        });
    }
}
