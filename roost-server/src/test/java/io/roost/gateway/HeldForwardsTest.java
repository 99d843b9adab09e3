package io.roost.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class HeldForwardsTest {

    /** A broker that takes or refuses as told, and what it took, per node, in order. */
    static final class Broker implements HeldForwards.Sender {
        final AtomicBoolean up = new AtomicBoolean(true);
        final List<String> took = Collections.synchronizedList(new ArrayList<>());

        @Override
        public boolean send(int nodeId, String body) {
            if (!up.get()) {
                return false;
            }
            took.add(nodeId + ":" + body);
            return true;
        }
    }

    private final AtomicLong now = new AtomicLong();
    private final List<String> givenUp = new ArrayList<>();
    private final Broker broker = new Broker();

    private Runnable giveUp(String body) {
        return () -> givenUp.add(body);
    }

    private boolean forward(HeldForwards held, int node, String body) {
        return held.sendOrHold(node, body, giveUp(body), broker);
    }

    @Test
    void framesWaitBehindWhatIsHeldAndLeaveInOrderOnceTheBrokerIsBack() {
        HeldForwards held = new HeldForwards(100, 1_000, now::get);
        assertFalse(forward(held, 2, "a"), "the broker takes it");
        broker.up.set(false);
        assertTrue(forward(held, 2, "b"));
        broker.up.set(true);
        assertTrue(forward(held, 2, "c"), "the broker is back, but b waits: c goes behind it");
        assertFalse(forward(held, 3, "x"), "nothing waits for node 3");
        assertFalse(held.flush(broker));
        assertEquals(List.of("2:a", "3:x", "2:b", "2:c"), broker.took);
        assertFalse(forward(held, 2, "d"), "the queue is empty again: straight to the broker");
        assertEquals(0, held.size());
        assertEquals(List.of(), givenUp);
    }

    @Test
    void aFlushStopsAtTheFirstRefusalAndKeepsTheRest() {
        HeldForwards held = new HeldForwards(100, 1_000, now::get);
        broker.up.set(false);
        forward(held, 2, "a");
        forward(held, 2, "b");
        assertTrue(held.flush(broker), "still held");
        assertEquals(2, held.size());
        broker.up.set(true);
        assertFalse(held.flush(broker));
        assertEquals(List.of("2:a", "2:b"), broker.took);
    }

    @Test
    void framesHeldTooLongOrBeyondTheCapacityAreGivenUp() {
        HeldForwards held = new HeldForwards(2, 1_000, now::get);
        broker.up.set(false);
        forward(held, 2, "a");
        now.set(600);
        forward(held, 2, "b");
        forward(held, 2, "c");
        assertEquals(List.of("c"), givenUp, "the queue was full");
        now.set(1_200);
        held.flush(broker);
        assertEquals(List.of("c", "a"), givenUp, "a waited 1,200 ns, more than the 1,000 allowed");
        broker.up.set(true);
        held.flush(broker);
        assertEquals(List.of("2:b"), broker.took);
    }

    @Test
    void whatIsStillHeldAtShutdownIsGivenUp() {
        HeldForwards held = new HeldForwards(10, 1_000, now::get);
        broker.up.set(false);
        forward(held, 2, "a");
        forward(held, 3, "b");
        held.giveUpAll();
        assertEquals(2, givenUp.size());
        assertEquals(0, held.size());
    }

    /**
     * A sender thread and the flush thread race while the broker flaps at random: every frame
     * reaches the broker exactly once, in the order it was forwarded.
     */
    @Test
    void aFlappingBrokerDeliversEveryFrameOnceInOrder() throws Exception {
        long seed = System.nanoTime();
        System.out.println("HeldForwardsTest seed " + seed);
        Random random = new Random(seed);
        HeldForwards held = new HeldForwards(1_000_000, Long.MAX_VALUE, System::nanoTime);
        int frames = 20_000;
        AtomicInteger forwarded = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(1);
        Thread sender = new Thread(() -> {
            for (int i = 0; i < frames; i++) {
                held.sendOrHold(2, Integer.toString(i), () -> { }, broker);
                forwarded.incrementAndGet();
            }
            done.countDown();
        });
        Thread flusher = new Thread(() -> {
            while (done.getCount() > 0 || held.size() > 0) {
                broker.up.set(random.nextInt(4) != 0);
                held.flush(broker);
            }
        });
        sender.start();
        flusher.start();
        sender.join(60_000);
        flusher.join(60_000);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < frames; i++) {
            expected.add("2:" + i);
        }
        assertEquals(expected, broker.took, "seed " + seed);
    }
}
