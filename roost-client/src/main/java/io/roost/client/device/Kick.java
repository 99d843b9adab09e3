package io.roost.client.device;

import java.util.Set;

/**
 * The server ended the session ({@code kick}, close 1008 follows). {@code reconnecting}: the device
 * comes back by itself (heartbeat_timeout, node_lost, ack_timeout, or a reason this library does
 * not know); after replaced_by_new_login, kicked_by_admin, account_disabled and account_unregistered
 * it stops, and it is for the user to decide.
 */
public record Kick(String reason, boolean reconnecting) {

    /** The reasons after which a device must not reconnect by itself. */
    public static final Set<String> FINAL = Set.of("replaced_by_new_login", "kicked_by_admin", "account_disabled",
            "account_unregistered");

    static Kick of(String reason) {
        return new Kick(reason, !FINAL.contains(reason));
    }
}
