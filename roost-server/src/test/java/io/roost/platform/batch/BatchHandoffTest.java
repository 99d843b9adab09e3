package io.roost.platform.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

class BatchHandoffTest {

    /** An executor that only records what it is given; the test runs the tasks itself. */
    private static final class Recording implements Executor {
        final List<Runnable> tasks = new ArrayList<>();

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
        }
    }

    @Test
    void theContinuationsOfABatchReachTheExecutorAsOneTaskAfterIt() {
        Recording pool = new Recording();
        BatchHandoff answers = new BatchHandoff(pool);
        List<String> answered = new ArrayList<>();
        List<CompletableFuture<String>> sends = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            CompletableFuture<String> sent = new CompletableFuture<>();
            sent.thenAcceptAsync(answered::add, answers);
            sends.add(sent);
        }
        List<Integer> handedOverDuringTheBatch = new ArrayList<>();
        BatchHandoff.collect(() -> {
            for (int i = 0; i < sends.size(); i++) {
                sends.get(i).complete("answer " + i);
            }
            handedOverDuringTheBatch.add(pool.tasks.size());
        });
        assertEquals(List.of(0), handedOverDuringTheBatch, "nothing reaches the executor before the batch is done");
        assertEquals(1, pool.tasks.size(), "one task for the batch's three answers");
        pool.tasks.get(0).run();
        assertEquals(List.of("answer 0", "answer 1", "answer 2"), answered, "in completion order");
    }

    @Test
    void outsideABatchEachTaskGoesAtOnce() {
        Recording pool = new Recording();
        BatchHandoff answers = new BatchHandoff(pool);
        answers.execute(() -> { });
        answers.execute(() -> { });
        assertEquals(2, pool.tasks.size());
    }

    @Test
    void aFailingTaskDoesNotKeepTheBatchsLaterTasksFromRunning() {
        Recording pool = new Recording();
        BatchHandoff answers = new BatchHandoff(pool);
        List<String> ran = new ArrayList<>();
        BatchHandoff.collect(() -> {
            answers.execute(() -> {
                throw new IllegalStateException("a socket gone");
            });
            answers.execute(() -> ran.add("second"));
        });
        pool.tasks.forEach(Runnable::run);
        assertEquals(List.of("second"), ran);
    }
}
