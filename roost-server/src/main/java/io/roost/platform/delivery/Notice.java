package io.roost.platform.delivery;

import jakarta.json.JsonObject;
import java.util.Collection;
import java.util.Set;

/**
 * A frame for the live connections of some users, wherever they are connected. A module fires it
 * inside its transaction; the gateway delivers it after commit, best effort: what it announces is
 * already durable and queryable, so a device that was offline or missed it loses nothing.
 *
 * @param type the frame type in the device envelope ({@code friendOp}, {@code presence}, …)
 * @param body the frame's fields besides the envelope's {@code v}, {@code type} and {@code tm}
 * @param exceptConnections connections of those users that must not get it: the ones whose
 *     request's answer already says the same
 */
public record Notice(Collection<Long> uids, String type, JsonObject body, Set<String> exceptConnections) {

    public Notice(Collection<Long> uids, String type, JsonObject body) {
        this(uids, type, body, Set.of());
    }
}
