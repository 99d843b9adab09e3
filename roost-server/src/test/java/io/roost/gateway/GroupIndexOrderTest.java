package io.roost.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A node writes a group's messages in seq order whatever order they come in, waits a while for a missing one, and drops second copies. */
class GroupIndexOrderTest {

    static GroupForward.Push push(long seq) {
        return new GroupForward.Push(7, seq, "f" + seq, true, List.of(), false, 1, null);
    }

    static List<Long> seqs(List<GroupForward.Push> pushes) {
        return pushes.stream().map(GroupForward.Push::seq).toList();
    }

    @Test
    void earlyMessagesWaitForTheOneBeforeThem() {
        GroupIndex.Order order = new GroupIndex.Order(10);
        assertEquals(List.of(), seqs(order.arrived(push(12), 0)));
        assertEquals(List.of(), seqs(order.arrived(push(11), 0)));
        assertEquals(List.of(10L, 11L, 12L), seqs(order.arrived(push(10), 0)));
        assertEquals(List.of(13L), seqs(order.arrived(push(13), 0)));
        assertEquals(List.of(), seqs(order.arrived(push(12), 0)), "a second copy is dropped");
    }

    @Test
    void aMissingOneIsGivenUpOnAfterTheWaitAndStillWrittenIfItComes() {
        long wait = TimeUnit.MILLISECONDS.toNanos(250);
        GroupIndex.Order order = new GroupIndex.Order(1);
        assertEquals(List.of(), seqs(order.arrived(push(3), 0)));
        assertEquals(List.of(), seqs(order.overdue(wait - 1, wait)), "not yet");
        assertEquals(List.of(3L), seqs(order.overdue(wait, wait)));
        assertEquals(List.of(4L), seqs(order.arrived(push(4), wait)));
        assertEquals(List.of(2L), seqs(order.arrived(push(2), wait)), "a late one given up on is still written");
        assertEquals(List.of(), seqs(order.arrived(push(2), wait)), "once");
        assertEquals(List.of(1L), seqs(order.arrived(push(1), wait)));
    }

    @Test
    void anyShuffleComesOutInOrderOnce() {
        long seed = System.nanoTime();
        System.out.println("GroupIndexOrderTest seed=" + seed);
        Random random = new Random(seed);
        for (int round = 0; round < 100; round++) {
            List<Long> all = new java.util.ArrayList<>();
            for (long s = 1; s <= 50; s++) {
                all.add(s);
                if (random.nextInt(5) == 0) {
                    all.add(s); // a redelivered copy
                }
            }
            java.util.Collections.shuffle(all, random);
            GroupIndex.Order order = new GroupIndex.Order(1);
            List<Long> written = new java.util.ArrayList<>();
            all.forEach(s -> written.addAll(seqs(order.arrived(push(s), 0))));
            assertEquals(java.util.stream.LongStream.rangeClosed(1, 50).boxed().toList(), written, "seed " + seed);
        }
    }
}
