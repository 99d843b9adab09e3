/**
 * The device WebSocket ({@code /ws}): logins, heartbeats, kicks and this node's connections, and
 * the {@code friendOp}, {@code groupOp}, {@code roomOp}, {@code chatOp} and {@code mediaOp} frames,
 * which it turns into calls of the social, group, room, chat and media services. Owns no table; owns the topic {@code roost-deliveries} (frames for
 * devices on another node) and consumes {@code roost-session-kicks}. Offers nothing to other modules:
 * it is an edge, and lower modules reach devices by firing a platform {@code Notice}.
 */
package io.roost.gateway;
