package io.roost.chat.group;

import io.roost.chat.ChatMeters;
import io.roost.chat.Sent;
import io.roost.platform.batch.GroupCommit;
import io.roost.platform.problem.ProblemException;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Group sends by group commit, as one-to-one sends are: the messages that arrive together are
 * written in one transaction ({@link GroupChatWriter#writeAll}), each answered after that commit.
 * If the batch fails, each message is written again alone, so one cannot fail the others.
 */
@ApplicationScoped
public class GroupSendQueue {

    private static final Logger LOG = Logger.getLogger(GroupSendQueue.class.getName());
    static final int BATCH_MAX = 500;
    static final int CAPACITY = 20_000;
    static final Duration PACING = Duration.ofMillis(5);

    record Pending(GroupChatWriter.Write write, CompletableFuture<Sent> done) {
    }

    @Inject
    GroupChatWriter writer;

    @Inject
    ChatMeters meters;

    @Resource
    ManagedThreadFactory threads;

    private final GroupCommit<Pending> queue = new GroupCommit<>("group-send", CAPACITY, () -> BATCH_MAX, PACING, this::apply);

    @PostConstruct
    void start() {
        meters.sendQueue(queue);
        queue.start(threads, 1);
    }

    @PreDestroy
    void stop() {
        queue.stop();
    }

    CompletableFuture<Sent> submit(GroupChatWriter.Write write) {
        Pending p = new Pending(write, new CompletableFuture<>());
        if (!queue.offer(p)) {
            p.done.completeExceptionally(new ProblemException(503, "service-unavailable", "Service Unavailable",
                    "Too many messages are waiting to be stored; send again shortly."));
        }
        return p.done;
    }

    private void apply(List<Pending> batch) {
        // one message per sendId in a batch; a second one is answered as the first's resend
        Map<Object, Pending> first = new LinkedHashMap<>();
        List<Pending> again = new ArrayList<>();
        for (Pending p : batch) {
            if (first.putIfAbsent(p.write().key(), p) != null) {
                again.add(p);
            }
        }
        List<Pending> writing = new ArrayList<>(first.values());
        try {
            complete(writing, writer.writeAll(writing.stream().map(Pending::write).toList()));
        } catch (Exception e) { // also the checked HeuristicMixedException of a commit on a dying connection
            if (writing.size() == 1) {
                writing.get(0).done.completeExceptionally(e);
            } else {
                LOG.log(Level.FINE, "group send batch of " + writing.size() + " failed, writing one by one", e);
                for (Pending p : writing) {
                    try {
                        complete(List.of(p), writer.writeAll(List.of(p.write())));
                    } catch (Exception single) {
                        p.done.completeExceptionally(single);
                    }
                }
            }
        }
        for (Pending p : again) {
            first.get(p.write().key()).done.whenComplete((sent, failure) -> {
                if (failure != null) {
                    p.done.completeExceptionally(failure);
                } else {
                    resend(p);
                }
            });
        }
    }

    /** The answers of a committed {@link GroupChatWriter#writeAll}, in order. */
    private void complete(List<Pending> writing, List<Object> answers) {
        int stored = 0;
        for (int i = 0; i < writing.size(); i++) {
            Object a = answers.get(i);
            if (a instanceof Sent s) {
                stored += s.resent() ? 0 : 1; // a refused resend of a stored message gets its stored answer
                writing.get(i).done.complete(s);
            } else if (a instanceof ProblemException e) {
                writing.get(i).done.completeExceptionally(e);
            } else {
                resend(writing.get(i)); // another transaction claimed the sendId first and committed
            }
        }
        meters.groupSent(stored);
    }

    private void resend(Pending p) {
        try {
            p.done.complete(writer.resent(p.write()));
        } catch (RuntimeException e) {
            p.done.completeExceptionally(e);
        }
    }
}
