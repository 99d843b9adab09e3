package io.roost.presence.session;

/**
 * Where one of a user's devices is connected: all that a delivery needs of its {@link DeviceRoute}
 * (read for every push and receipt, so without the route's other columns).
 */
public record RouteTarget(long uid, int nodeId, String connectionId) {
}
