package io.roost.client.device;

/**
 * What a device hears. Every method has an empty default: implement those you need. Calls for one
 * device come one at a time, in the order the device received what they report, on the device's
 * executor (never the I/O thread); a slow listener holds back that device's later calls only. An
 * exception a method throws is dropped: the message still counts as taken.
 */
public interface DeviceListener {

    /**
     * A message, each once, in seq order per conversation. The device acknowledges it (and writes
     * its seq to the {@link SyncStore}) after this returns.
     */
    default void onMessage(Message message) {
    }

    default void onReceipt(Receipt receipt) {
    }

    default void onPresence(Presence presence) {
    }

    default void onNotice(Notice notice) {
    }

    /** A kick; {@link Kick#reconnecting()} says whether the device comes back by itself. */
    default void onKick(Kick kick) {
    }

    /**
     * An {@code error} frame that answered no request: a login refused ({@code invalid-token},
     * {@code server-busy}, …) or a protocol violation. The connection closes after most of them;
     * whether the device comes back, {@link #onStopped} says.
     */
    default void onError(RoostFrameException error) {
    }

    /** Logged in (first time or after a reconnect); the catch-up starts now. */
    default void onOnline(Session session) {
    }

    /** The connection ended; the device reconnects unless {@link #onStopped} follows. */
    default void onOffline(int closeCode, String reason) {
    }

    /** The device stopped for good: {@code cause} is null after {@link RoostDevice#close()} or a logout. */
    default void onStopped(Throwable cause) {
    }
}
