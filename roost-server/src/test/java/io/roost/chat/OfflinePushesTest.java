package io.roost.chat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.roost.presence.session.DeviceRoute;
import io.roost.presence.session.SessionsLost;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The window of messages a lost node may have left unsettled for a device it held. */
class OfflinePushesTest {

    static final Duration SETTLING = Duration.ofSeconds(30); // a 15 s deadline, pushed twice
    static final Instant HEARTBEAT = Instant.parse("2026-11-29T10:00:00Z");

    @Test
    void theWindowOpensTheSettlingTimeBeforeTheNodesLastHeartbeat() {
        SessionsLost.Lost longLoggedIn = lost(1, HEARTBEAT.minus(Duration.ofHours(2)), HEARTBEAT);
        assertEquals(Map.of(1L, HEARTBEAT.minus(SETTLING)), OfflinePushes.unsettledSince(List.of(longLoggedIn), SETTLING),
                "older pushes the node had settled itself");
    }

    @Test
    void orAtTheLoginIfThatCameLater() {
        Instant login = HEARTBEAT.minusSeconds(10);
        assertEquals(Map.of(1L, login), OfflinePushes.unsettledSince(List.of(lost(1, login, HEARTBEAT)), SETTLING),
                "what came before the login had no route to this node");
    }

    @Test
    void aNodeThatNeverHeartbeatedLeavesEverythingSinceTheLogin() {
        Instant login = HEARTBEAT.minus(Duration.ofHours(1));
        assertEquals(Map.of(1L, login), OfflinePushes.unsettledSince(List.of(lost(1, login, null)), SETTLING));
    }

    @Test
    void aUserWithSeveralLostDevicesGetsTheEarliestWindow() {
        Instant laterLogin = HEARTBEAT.minusSeconds(5);
        Map<Long, Instant> since = OfflinePushes.unsettledSince(List.of(lost(1, laterLogin, HEARTBEAT),
                lost(1, HEARTBEAT.minus(Duration.ofHours(1)), HEARTBEAT), lost(2, laterLogin, HEARTBEAT)), SETTLING);
        assertEquals(Map.of(1L, HEARTBEAT.minus(SETTLING), 2L, laterLogin), since);
    }

    private static SessionsLost.Lost lost(long uid, Instant login, Instant nodeLastHeartbeat) {
        DeviceRoute route = new DeviceRoute(uid, "android", "", 7, "c-" + uid + "-" + login, "d", 1,
                login.atOffset(ZoneOffset.UTC), login.atOffset(ZoneOffset.UTC));
        return new SessionsLost.Lost(route, nodeLastHeartbeat == null ? null : OffsetDateTime.ofInstant(nodeLastHeartbeat, ZoneOffset.UTC));
    }
}
