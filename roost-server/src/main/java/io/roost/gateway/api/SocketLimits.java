package io.roost.gateway.api;

import io.undertow.websockets.jsr.UndertowSession;
import jakarta.websocket.Session;
import java.io.IOException;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.xnio.Options;

/**
 * The lower-level limits of a device's socket, set from the heartbeat timeout so that only that
 * timeout ends a silent session (the sweep: {@code kick} frame, close 1008, login log
 * {@code timeout}).
 *
 * <p>WildFly's HTTP listener closes any connection that has read nothing, or written nothing, for
 * its {@code read-timeout} / {@code write-timeout} (90 s by default), with no WebSocket close frame;
 * an upgraded socket inherits both. Undertow reads the two options from the connection at every
 * check, so raising them on this socket moves its limits and leaves plain HTTP as it is. The same
 * limit goes into the WebSocket idle timeout. They sit a whole timeout (at least a minute) above
 * the heartbeat timeout: they only end a connection the sweep could not end (say, the database was
 * away), never one the sweep is about to.
 */
final class SocketLimits {

    private static final Logger LOG = Logger.getLogger(SocketLimits.class.getName());
    private static final Duration LEAST_MARGIN = Duration.ofMinutes(1);

    private SocketLimits() {
    }

    /** The idle limit of a device socket: the heartbeat timeout plus the larger of itself and a minute. */
    static Duration idleLimit(Duration heartbeatTimeout) {
        Duration margin = heartbeatTimeout.compareTo(LEAST_MARGIN) > 0 ? heartbeatTimeout : LEAST_MARGIN;
        return heartbeatTimeout.plus(margin);
    }

    static void apply(Session session, Duration heartbeatTimeout) {
        long limitMillis = idleLimit(heartbeatTimeout).toMillis();
        session.setMaxIdleTimeout(limitMillis);
        if (session instanceof UndertowSession undertow) {
            int millis = (int) Math.min(limitMillis, Integer.MAX_VALUE);
            try {
                undertow.getWebSocketChannel().setOption(Options.READ_TIMEOUT, millis);
                undertow.getWebSocketChannel().setOption(Options.WRITE_TIMEOUT, millis);
            } catch (IOException | IllegalArgumentException e) {
                LOG.log(Level.WARNING, "could not raise a device socket's read/write timeouts; the HTTP listener's apply", e);
            }
        }
    }
}
