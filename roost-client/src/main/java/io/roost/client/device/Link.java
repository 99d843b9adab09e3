package io.roost.client.device;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.WebSocket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One WebSocket connection of a device: frames in (reassembled, one at a time) and out (queued:
 * the JDK's WebSocket takes one send at a time, and several threads send).
 */
final class Link implements WebSocket.Listener {

    interface Events {
        void opened(Link link);

        void received(Link link, String text);

        void ended(Link link, int code, String reason);
    }

    private final Events events;
    private final StringBuilder partial = new StringBuilder();
    private CompletableFuture<?> sending = CompletableFuture.completedFuture(null);
    private volatile WebSocket ws;
    volatile long lastHeardNanos = System.nanoTime();

    Link(Events events) {
        this.events = events;
    }

    /** Queues {@code frame} behind the frames sent before it; dropped if the connection is gone. */
    void send(ObjectNode frame) {
        String text = Frames.encode(frame);
        synchronized (this) {
            WebSocket socket = ws;
            if (socket == null || socket.isOutputClosed()) {
                return;
            }
            sending = sending.handle((r, e) -> null).thenCompose(x -> socket.sendText(text, true));
        }
    }

    /** Closes with 1000 after what is queued. */
    void close() {
        synchronized (this) {
            WebSocket socket = ws;
            if (socket != null && !socket.isOutputClosed()) {
                sending = sending.handle((r, e) -> null).thenCompose(x -> socket.sendClose(WebSocket.NORMAL_CLOSURE, "bye"));
            }
        }
    }

    /** Drops the TCP connection without a close frame. */
    void abort() {
        WebSocket socket = ws;
        if (socket != null) {
            socket.abort();
        }
        events.ended(this, -1, "aborted");
    }

    @Override
    public void onOpen(WebSocket webSocket) {
        ws = webSocket;
        events.opened(this);
        webSocket.request(1);
    }

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
        lastHeardNanos = System.nanoTime();
        partial.append(data);
        if (last) {
            String text = partial.toString();
            partial.setLength(0);
            events.received(this, text);
        }
        webSocket.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
        events.ended(this, statusCode, reason);
        return null;
    }

    @Override
    public void onError(WebSocket webSocket, Throwable error) {
        events.ended(this, -1, String.valueOf(error));
    }
}
