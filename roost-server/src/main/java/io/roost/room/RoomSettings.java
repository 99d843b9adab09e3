package io.roost.room;

import io.roost.platform.config.Durations;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Live-room configuration (environment variables in the README). */
@ApplicationScoped
public class RoomSettings {

    @Inject
    @ConfigProperty(name = "roost.room.viewer-timeout", defaultValue = "30s")
    String viewerTimeout;

    @Inject
    @ConfigProperty(name = "roost.room.anchor-timeout", defaultValue = "60s")
    String anchorTimeout;

    @Inject
    @ConfigProperty(name = "roost.room.counts-interval", defaultValue = "5s")
    String countsInterval;

    @Inject
    @ConfigProperty(name = "roost.room.history-retention", defaultValue = "30d")
    String historyRetention;

    /** A viewer silent for longer than this has left. */
    public Duration viewerTimeout() {
        return Durations.parse(viewerTimeout);
    }

    /** An anchor silent for longer than this has its session closed. */
    public Duration anchorTimeout() {
        return Durations.parse(anchorTimeout);
    }

    /** How often an open session's counts go to {@code roost-room-events}. */
    public Duration countsInterval() {
        return Durations.parse(countsInterval);
    }

    /** Closed sessions and their entry history are deleted after this. */
    public Duration historyRetention() {
        return Durations.parse(historyRetention);
    }
}
