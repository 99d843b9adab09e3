package io.roost.chat;

import io.roost.platform.batch.GroupCommit;
import io.roost.platform.problem.ProblemException;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Read reports by group commit: the reports that arrive together are applied in one transaction
 * ({@link Receipts#readAll}); each reporter gets its answer after that commit. If a batch fails,
 * each report is applied again on its own.
 */
@ApplicationScoped
public class ReadQueue {

    static final int BATCH_MAX = 500;
    static final int CAPACITY = 20_000;
    /** Under a stream of read reports, a commit at most this often: a report's answer may wait this long. */
    static final Duration PACING = Duration.ofMillis(20);

    /** A report, the device connection it came from (null: REST), and its answer. */
    private record Pending(Cursor report, String fromConnection, CompletableFuture<ReadState> done) {
    }

    @Inject
    Receipts receipts;

    @Inject
    ChatMeters meters;

    @Resource
    ManagedThreadFactory threads;

    private final GroupCommit<Pending> queue = new GroupCommit<>("chat-read", CAPACITY, () -> BATCH_MAX, PACING, this::apply);

    @PostConstruct
    void start() {
        meters.readQueue(queue);
        queue.start(threads, 1);
    }

    @PreDestroy
    void stop() {
        queue.stop();
    }

    CompletableFuture<ReadState> submit(long reader, long peer, long seq, String fromConnection) {
        Pending p = new Pending(new Cursor(reader, peer, seq), fromConnection, new CompletableFuture<>());
        if (!queue.offer(p)) {
            p.done.completeExceptionally(new ProblemException(503, "service-unavailable", "Service Unavailable",
                    "Too many read reports are waiting; report again shortly."));
        }
        return p.done;
    }

    private void apply(List<Pending> batch) {
        try {
            complete(batch, receipts.readAll(batch.stream().map(Pending::report).toList(), answeredOn(batch)));
        } catch (Exception batchFailed) { // also the checked HeuristicMixedException of a commit on a dying connection
            for (Pending p : batch) {
                try {
                    complete(List.of(p), receipts.readAll(List.of(p.report), answeredOn(List.of(p))));
                } catch (Exception e) {
                    p.done.completeExceptionally(e);
                }
            }
        }
    }

    /** The connections each conversation's reports came from: their answers carry the new side. */
    private static Map<List<Long>, Set<String>> answeredOn(List<Pending> batch) {
        Map<List<Long>, Set<String>> on = new HashMap<>();
        for (Pending p : batch) {
            if (p.fromConnection != null) {
                on.computeIfAbsent(List.of(p.report.owner(), p.report.peer()), k -> new HashSet<>()).add(p.fromConnection);
            }
        }
        return on;
    }

    private static void complete(List<Pending> batch, Map<List<Long>, ReadState> answers) {
        for (Pending p : batch) {
            ReadState state = answers.get(List.of(p.report.owner(), p.report.peer()));
            if (state == null) {
                p.done.completeExceptionally(ChatService.noConversation(p.report.peer()));
            } else {
                p.done.complete(state);
            }
        }
    }
}
