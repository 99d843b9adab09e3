package io.roost.gateway;

import io.roost.chat.ChatService;
import io.roost.chat.Cursor;
import io.roost.platform.batch.GroupCommit;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Devices' acknowledgements, written as delivered cursors by group commit: the acknowledgements
 * that arrive together move their conversations' cursors in one transaction (one per
 * conversation, the highest), not one transaction per message. A device expects no answer to an
 * acknowledgement, so nothing waits for these commits; if the queue is full the cursor moves with
 * the conversation's next acknowledgement instead.
 */
@ApplicationScoped
public class DeliveredCursors {

    private static final Logger LOG = Logger.getLogger(DeliveredCursors.class.getName());
    static final int BATCH_MAX = 1000;
    static final int CAPACITY = 100_000;
    /** Under a stream of acknowledgements, a commit at most this often: a delivered receipt may wait this long. */
    static final Duration PACING = Duration.ofMillis(20);

    @Inject
    ChatService chat;

    @Resource
    ManagedThreadFactory threads;

    private final GroupCommit<Cursor> commit = new GroupCommit<>("chat-delivered", CAPACITY, () -> BATCH_MAX, PACING, this::apply);

    @PostConstruct
    void start() {
        commit.start(threads, 1);
    }

    @PreDestroy
    void stop() {
        commit.stop();
    }

    public void record(long owner, long peer, long seq) {
        if (!commit.offer(new Cursor(owner, peer, seq))) {
            LOG.log(Level.FINE, "delivered-cursor queue full; the conversation's next acknowledgement moves it");
        }
    }

    private void apply(List<Cursor> batch) {
        try {
            chat.delivered(List.copyOf(batch));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "delivered cursors of " + batch.size() + " acknowledgements not written", e);
        }
    }
}
