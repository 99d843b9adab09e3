package io.roost.gateway.api;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One connection's frames, in arrival order. The frames that only queue work (a chat send, read
 * or acknowledgement, a heartbeat) run at once on the connection's IO thread: handing each to a
 * worker thread and waking it cost more than the frame's own work. The frames that wait on the
 * database (login, the friend, group, room and conversation ops, the close) run on a worker
 * thread, and every frame that arrives behind one of them waits its turn there, so a connection's
 * frames are still handled one at a time, in order.
 */
final class FrameLane {

    private static final Logger LOG = Logger.getLogger(FrameLane.class.getName());

    private final Executor worker;
    private final ArrayDeque<Runnable> queued = new ArrayDeque<>();
    private boolean draining;

    FrameLane(Executor worker) {
        this.worker = worker;
    }

    /** Runs a frame's work now if it may block nothing and nothing is queued ahead of it; else queues it for the worker. */
    void submit(Runnable work, boolean waitsOnDatabase) {
        synchronized (this) {
            if (draining || waitsOnDatabase) {
                queued.add(work);
                if (!draining) {
                    draining = true;
                    worker.execute(this::drain);
                }
                return;
            }
        }
        work.run();
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
