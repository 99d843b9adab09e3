package io.roost.presence.rtc;

import io.roost.platform.batch.GroupCommit;
import io.roost.presence.store.RtcStore;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.EJB;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.inject.Inject;
import io.roost.presence.PresenceMeters;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * Group commit for NCS notices ({@link GroupCommit}). Webhook requests hand their notice to a queue
 * and wait; a batch is applied in one transaction with one multi-row statement, and every waiting
 * request completes only after the commit.
 *
 * <p>Duplicates are dropped early by a bounded memory of recently applied noticeIds (per node), so
 * redeliveries rarely reach the database; correctness does not depend on it — the conditional
 * upsert on clientSeq is what makes a duplicate harmless.
 */
@Singleton
@Startup
@DependsOn("DatabaseMigrator")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
// Queueing needs no transaction: without this every webhook request began and committed a JTA one.
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class RtcIngestor {

    private static final Logger LOG = Logger.getLogger(RtcIngestor.class.getName());
    static final int WRITERS = 2;

    private record Pending(NcsNotice notice, CompletableFuture<Void> done) {
    }

    @Resource
    ManagedThreadFactory threads;

    @EJB
    RtcStore store;

    @Inject
    RtcSettings settings;

    @Inject
    PresenceMeters meters;

    private final GroupCommit<Pending> queue = new GroupCommit<>("rtc-ingest", 100_000, () -> settings.batchMax(),
            this::applyAndComplete);
    private final RecentNotices recent = new RecentNotices(200_000);

    final AtomicLong received = new AtomicLong();
    final AtomicLong duplicates = new AtomicLong();
    final AtomicLong unknownTypes = new AtomicLong();
    final AtomicLong batches = new AtomicLong();
    final AtomicLong membersChanged = new AtomicLong();

    @Schema(name = "RtcIngestStats") // in the OpenAPI document: another API type has the same simple name
    public record Stats(long received, long duplicatesSkipped, long unknownTypes, long batches, long membersChanged,
                        int queued) {
    }

    @PostConstruct
    void start() {
        queue.start(threads, WRITERS);
    }

    @PreDestroy
    void stop() {
        queue.stop();
    }

    /** Completes when the notice's effect is committed (or it was a known duplicate / unknown type). */
    public CompletableFuture<Void> submit(NcsNotice notice) {
        received.incrementAndGet();
        if (!NcsEventType.isKnown(notice.eventType())) {
            unknownTypes.incrementAndGet();
            return CompletableFuture.completedFuture(null);
        }
        if (recent.contains(notice.noticeId())) {
            duplicates.incrementAndGet();
            meters.rtc(PresenceMeters.Outcome.DUPLICATE, 1);
            return CompletableFuture.completedFuture(null);
        }
        Pending p = new Pending(notice, new CompletableFuture<>());
        if (!queue.offer(p)) {
            p.done.completeExceptionally(new IllegalStateException("ingest queue full"));
        }
        return p.done;
    }

    public Stats stats() {
        return new Stats(received.get(), duplicates.get(), unknownTypes.get(), batches.get(), membersChanged.get(),
                queue.queued());
    }

    /**
     * What became of a committed batch's notices, {@code membersChanged} of its member rows having
     * changed: a noticeId seen earlier in the batch is a duplicate (a redelivery that raced its
     * first delivery), a channel event applied, and a member event that changed no row (its
     * clientSeq not above the row's, or a higher one of the same member in the batch) stale.
     */
    static void count(PresenceMeters meters, List<NcsNotice> batch, int membersChanged) {
        Set<String> seen = new HashSet<>();
        int channelEvents = 0;
        int distinct = 0;
        for (NcsNotice n : batch) {
            if (seen.add(n.noticeId())) {
                distinct++;
                if (n.isChannelEvent()) {
                    channelEvents++;
                }
            }
        }
        int applied = channelEvents + membersChanged;
        meters.rtc(PresenceMeters.Outcome.DUPLICATE, batch.size() - distinct);
        meters.rtc(PresenceMeters.Outcome.APPLIED, applied);
        meters.rtc(PresenceMeters.Outcome.STALE, distinct - applied);
    }

    private void applyAndComplete(List<Pending> batch) {
        List<NcsNotice> channelEvents = new ArrayList<>();
        List<NcsNotice> memberEvents = new ArrayList<>();
        for (Pending p : batch) {
            (p.notice.isChannelEvent() ? channelEvents : memberEvents).add(p.notice);
        }
        try {
            RtcStore.BatchOutcome outcome = store.applyBatch(channelEvents,
                    MemberTransitions.latestPerMember(memberEvents), settings.kickDelay());
            batches.incrementAndGet();
            membersChanged.addAndGet(outcome.membersChanged());
            count(meters, batch.stream().map(Pending::notice).toList(), outcome.membersChanged());
            for (Pending p : batch) {
                recent.add(p.notice.noticeId());
                p.done.complete(null);
            }
        } catch (Exception e) {
            // Nothing was committed: every request of the batch fails, and NCS will retry it.
            LOG.log(Level.WARNING, "RTC batch of " + batch.size() + " notices failed", e);
            batch.forEach(p -> p.done.completeExceptionally(e));
        }
    }
}
