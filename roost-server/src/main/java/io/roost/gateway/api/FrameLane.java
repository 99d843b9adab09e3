package io.roost.gateway.api;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One connection's frames, in arrival order. The frames that only queue work (a chat send, read
 * or acknowledgement, a heartbeat) run at once on the connection's IO thread: handing each to a
 * worker thread and waking it cost more than the frame's own work. The frames that wait on the
 * database (login, the friend, group, room, media and conversation ops, the close) run on a worker
 * thread, and every frame that arrives behind one of them waits its turn there, so a connection's
 * frames are still handled one at a time, in order. At most {@link #MAX_WAITING} frames wait so:
 * a client that sends more without waiting for answers would otherwise grow the queue, and hold a
 * worker thread, for as long as it kept sending.
 */
final class FrameLane {

    private static final Logger LOG = Logger.getLogger(FrameLane.class.getName());
    static final int MAX_WAITING = 256;

    private final Executor worker;
    private final ArrayDeque<Runnable> queued = new ArrayDeque<>();
    private boolean draining;

    FrameLane(Executor worker) {
        this.worker = worker;
    }

    /**
     * Runs a frame's work now if it may block nothing and nothing is queued ahead of it; else queues
     * it for the worker. False, and nothing done, if {@link #MAX_WAITING} frames wait already.
     */
    boolean offer(Runnable work, boolean waitsOnDatabase) {
        return enqueue(work, waitsOnDatabase, true);
    }

    /** Queues the connection's end behind whatever waits, however much that is (it must run once). */
    void close(Runnable work) {
        enqueue(work, true, false);
    }

    private boolean enqueue(Runnable work, boolean waitsOnDatabase, boolean bounded) {
        synchronized (this) {
            if (draining || waitsOnDatabase) {
                if (bounded && queued.size() >= MAX_WAITING) {
                    return false;
                }
                queued.add(work);
                if (!draining) {
                    draining = true;
                    worker.execute(this::drain);
                }
                return true;
            }
        }
        work.run();
        return true;
    }

    private void drain() {
        while (true) {
            Runnable next;
            synchronized (this) {
                next = queued.poll();
                if (next == null) {
                    draining = false;
                    return;
                }
            }
            try {
                next.run();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "a frame's work failed", e);
            }
        }
    }
}
