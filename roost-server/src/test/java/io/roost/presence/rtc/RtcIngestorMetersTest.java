package io.roost.presence.rtc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.roost.platform.metrics.Meters;
import io.roost.presence.PresenceMeters;
import io.roost.presence.store.RtcStore;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** roost.presence.rtc.events by outcome: applied, a redelivered noticeId a duplicate, an older clientSeq stale. */
class RtcIngestorMetersTest {

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final PresenceMeters meters = PresenceMeters.over(Meters.over(registry));

    private double events(String outcome) {
        return registry.get("roost.presence.rtc.events").tags("outcome", outcome).counter().count();
    }

    private static NcsNotice join(String noticeId, long uid, long clientSeq) {
        return new NcsNotice(noticeId, NcsEventType.BROADCASTER_JOIN, 1, "ch", uid, clientSeq, 1, null, null, null, null);
    }

    @Test
    void aBatchCountsItsChannelEventsAndChangedMembersAppliedTheRestStaleAndRepeatedNoticeIdsDuplicates() {
        NcsNotice create = new NcsNotice("n0", NcsEventType.CHANNEL_CREATE, 1, "ch", 0, 0, 1, null, null, null, null);
        // uid 5: seq 2 and 3 in one batch (only 3 can change the row), n2 delivered twice; uid 6's seq is not above its row's
        RtcIngestor.count(meters, List.of(create, join("n1", 5, 2), join("n2", 5, 3), join("n2", 5, 3), join("n3", 6, 1)), 1);
        assertEquals(2, events("applied"), "the create and uid 5's seq 3");
        assertEquals(1, events("duplicate"));
        assertEquals(2, events("stale"), "uid 5's seq 2, and uid 6's");
    }

    @Test
    void aRedeliveryOfAnAppliedNoticeIsCountedAsDuplicate() throws Exception {
        RtcIngestor ingestor = new RtcIngestor();
        ingestor.meters = meters;
        ingestor.settings = new RtcSettings() {
            @Override
            public int batchMax() {
                return 10;
            }

            @Override
            public Duration kickDelay() {
                return Duration.ofSeconds(60);
            }
        };
        ingestor.store = new RtcStore() {
            @Override
            public BatchOutcome applyBatch(List<NcsNotice> channelEvents, List<NcsNotice> memberEvents, Duration kickDelay) {
                return new BatchOutcome(memberEvents.size(), 0); // every member row changes
            }
        };
        ingestor.threads = (ManagedThreadFactory) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ManagedThreadFactory.class}, (proxy, method, args) -> {
                    if (!method.getName().equals("newThread")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    Thread t = new Thread((Runnable) args[0], "rtc-ingest-test");
                    t.setDaemon(true);
                    return t;
                });
        ingestor.start();
        try {
            ingestor.submit(join("n1", 5, 1)).get(10, TimeUnit.SECONDS);
            assertEquals(1, events("applied"));
            ingestor.submit(join("n1", 5, 1)).get(10, TimeUnit.SECONDS);
            assertEquals(1, events("duplicate"), "its noticeId was applied a moment ago");
            assertEquals(1, events("applied"));
            assertEquals(0, events("stale"));
        } finally {
            ingestor.stop();
        }
    }
}
