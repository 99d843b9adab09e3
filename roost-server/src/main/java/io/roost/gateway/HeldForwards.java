package io.roost.gateway;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Frames for other nodes that the broker did not take, held in order, one queue per node, until it
 * takes them again. A broker outage is not the devices' fault: a push dropped for a device on
 * another node leaves a gap in its conversation, so that device can acknowledge nothing after it
 * and would end as not acknowledging. Held, the frames reach the broker late but whole and in
 * their order (its queues may still hand them over in another: the device orders by seq).
 *
 * <p>Once a node's queue holds anything, every later frame for that node joins it, so nothing
 * overtakes what waits. A frame held longer than {@code maxHoldNanos}, or one that finds its queue
 * full, is given up: its {@code onGiveUp} runs (a chat message's recipients take the offline path;
 * devices read the rest in their catch-up), as it does for everything still held at shutdown.
 * Sends happen outside the lock: a flush stuck on the broker never blocks the delivery thread,
 * which then only appends.
 */
final class HeldForwards {

    private static final Logger LOG = Logger.getLogger(HeldForwards.class.getName());

    /** What is held for one node: its body, when it was held, and what to do if it is given up. */
    record Held(String body, long heldAt, Runnable onGiveUp) {
    }

    /** Puts a body on the broker for a node; false if the broker did not take it. */
    interface Sender {
        boolean send(int nodeId, String body);
    }

    private final Map<Integer, ArrayDeque<Held>> byNode = new HashMap<>();
    private final int capacity;
    private final long maxHoldNanos;
    private final LongSupplier clock;
    /** Told how many frames were given up, each time some are. */
    private final IntConsumer givenUp;
    private int size;

    HeldForwards(int capacity, long maxHoldNanos, LongSupplier clock) {
        this(capacity, maxHoldNanos, clock, n -> { });
    }

    HeldForwards(int capacity, long maxHoldNanos, LongSupplier clock, IntConsumer givenUp) {
        this.capacity = capacity;
        this.maxHoldNanos = maxHoldNanos;
        this.clock = clock;
        this.givenUp = givenUp;
    }

    /**
     * Sends {@code body} to {@code nodeId} now unless frames for that node wait already, in which
     * case, or if the broker refuses it, it is held behind them. True if it was held (the caller
     * makes sure a flush is due).
     */
    boolean sendOrHold(int nodeId, String body, Runnable onGiveUp, Sender sender) {
        synchronized (this) {
            ArrayDeque<Held> queue = byNode.get(nodeId);
            if (queue != null && !queue.isEmpty()) {
                return hold(queue, body, onGiveUp);
            }
        }
        if (sender.send(nodeId, body)) {
            return false;
        }
        synchronized (this) {
            ArrayDeque<Held> queue = byNode.computeIfAbsent(nodeId, n -> new ArrayDeque<>());
            if (queue.isEmpty()) {
                LOG.log(Level.INFO, "the broker refused a frame for node " + nodeId + ": holding its frames until it takes them");
            }
            return hold(queue, body, onGiveUp);
        }
    }

    private boolean hold(ArrayDeque<Held> queue, String body, Runnable onGiveUp) {
        if (size >= capacity) {
            giveUp(List.of(new Held(body, clock.getAsLong(), onGiveUp)), "the held frames' queue is full");
            return true;
        }
        queue.addLast(new Held(body, clock.getAsLong(), onGiveUp));
        size++;
        return true;
    }

    /**
     * Sends what is held, oldest first, node by node, and stops at a node's first refusal; gives up
     * frames held too long. True if anything is still held (a flush is due again).
     */
    boolean flush(Sender sender) {
        List<Integer> nodes;
        synchronized (this) {
            nodes = new ArrayList<>(byNode.keySet());
        }
        boolean still = false;
        for (int nodeId : nodes) {
            giveUp(takeHeldLongerThanAllowed(nodeId, clock.getAsLong()), "held longer than the broker's outage allows");
            Held head;
            while ((head = peek(nodeId)) != null) {
                if (!sender.send(nodeId, head.body())) {
                    still = true;
                    break;
                }
                if (remove(nodeId, head)) {
                    LOG.log(Level.INFO, "the broker took the frames held for node " + nodeId);
                }
            }
        }
        return still;
    }

    /** Gives up everything held (the node stops). */
    void giveUpAll() {
        List<Held> all = new ArrayList<>();
        synchronized (this) {
            byNode.values().forEach(all::addAll);
            byNode.clear();
            size = 0;
        }
        giveUp(all, "the node stops");
    }

    synchronized int size() {
        return size;
    }

    private synchronized Held peek(int nodeId) {
        ArrayDeque<Held> queue = byNode.get(nodeId);
        return queue == null ? null : queue.peekFirst();
    }

    /** Removes the head that was sent; true if that emptied the node's queue. */
    private synchronized boolean remove(int nodeId, Held head) {
        ArrayDeque<Held> queue = byNode.get(nodeId);
        if (queue != null && queue.peekFirst() == head) {
            queue.removeFirst();
            size--;
            return queue.isEmpty();
        }
        return false;
    }

    /** The age compared, not a threshold computed: {@code now - maxHoldNanos} overflows for a hold near Long.MAX_VALUE. */
    private synchronized List<Held> takeHeldLongerThanAllowed(int nodeId, long now) {
        return take(nodeId, h -> now - h.heldAt() > maxHoldNanos);
    }

    private List<Held> take(int nodeId, Predicate<Held> which) {
        List<Held> taken = new ArrayList<>();
        ArrayDeque<Held> queue = byNode.get(nodeId);
        while (queue != null && !queue.isEmpty() && which.test(queue.peekFirst())) {
            taken.add(queue.removeFirst());
            size--;
        }
        return taken;
    }

    private void giveUp(List<Held> held, String why) {
        if (held.isEmpty()) {
            return;
        }
        givenUp.accept(held.size());
        LOG.log(Level.WARNING, "giving up " + held.size() + " frames for other nodes (" + why + "); their devices read them in their catch-up");
        for (Held h : held) {
            try {
                h.onGiveUp().run();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "the fallback of a frame given up failed", e);
            }
        }
    }
}
