package io.roost.platform.outbox;

/** Fired when an outbox row was written; observed after commit to wake the relay. */
public record OutboxWritten(long id) {
}
