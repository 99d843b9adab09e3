package io.roost.gateway.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link FrameLane}: queuing-only frames run on the IO thread, database frames on the worker, all in arrival order. */
class FrameLaneTest {

    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> new Thread(r, "worker"));
    private final FrameLane lane = new FrameLane(worker);
    private final List<String> ran = Collections.synchronizedList(new ArrayList<>());

    @AfterEach
    void stop() {
        worker.shutdownNow();
    }

    private Runnable record(String frame) {
        return () -> ran.add(frame + "@" + Thread.currentThread().getName());
    }

    /** Waits until the worker has finished whatever the lane gave it (its one thread runs tasks in order). */
    private void workerIdle() throws Exception {
        worker.submit(() -> { }).get(5, TimeUnit.SECONDS);
    }

    @Test
    void anIdleLaneRunsAQueuingFrameOnTheCallersThread() {
        lane.offer(record("chatAck"), false);
        assertEquals(List.of("chatAck@" + Thread.currentThread().getName()), ran);
    }

    @Test
    void aDatabaseFrameRunsOnTheWorkerAndTheFramesBehindItWaitTheirTurn() throws Exception {
        String me = Thread.currentThread().getName();
        CountDownLatch loginMayFinish = new CountDownLatch(1);
        lane.offer(() -> {
            try {
                assertTrue(loginMayFinish.await(5, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ran.add("login@" + Thread.currentThread().getName());
        }, true);
        lane.offer(record("chatOp send"), false);
        lane.offer(record("heartbeat"), false);
        assertEquals(List.of(), ran, "nothing overtakes the login");
        loginMayFinish.countDown();
        workerIdle();
        assertEquals(List.of("login@worker", "chatOp send@worker", "heartbeat@worker"), ran);

        lane.offer(record("chatAck"), false);
        assertEquals("chatAck@" + me, ran.get(3), "once the lane is drained, queuing frames run inline again");
    }

    @Test
    void atMostMaxWaitingFramesWaitAndTheConnectionsEndAlwaysQueues() throws Exception {
        CountDownLatch first = new CountDownLatch(1);
        CountDownLatch taken = new CountDownLatch(1);
        assertTrue(lane.offer(() -> {
            taken.countDown();
            try {
                assertTrue(first.await(5, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, true));
        assertTrue(taken.await(5, TimeUnit.SECONDS), "the worker took the first frame and holds it");
        for (int i = 0; i < FrameLane.MAX_WAITING; i++) {
            assertTrue(lane.offer(record("conversations " + i), true), "frame " + i);
        }
        assertFalse(lane.offer(record("one too many"), true), "a database frame beyond the cap");
        assertFalse(lane.offer(record("one too many"), false), "a queuing frame behind them too");
        lane.close(record("closed"));
        first.countDown();
        workerIdle();
        assertEquals(FrameLane.MAX_WAITING + 1, ran.size());
        assertEquals("closed@worker", ran.get(FrameLane.MAX_WAITING), "the end runs last, after every frame taken");
    }

    @Test
    void aFailingFrameDoesNotStopTheOnesBehindIt() throws Exception {
        lane.offer(() -> {
            throw new IllegalStateException("this frame's work fails");
        }, true);
        lane.offer(record("friendOp"), true);
        workerIdle();
        assertEquals(List.of("friendOp@worker"), ran);
    }
}
