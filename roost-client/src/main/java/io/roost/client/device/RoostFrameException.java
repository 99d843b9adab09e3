package io.roost.client.device;

/**
 * A request the server refused: an {@code …Ret} with {@code result: "fail"}, or an {@code error}
 * frame, with its documented {@code code} (docs/protocol.md). The library's own codes, which no
 * server sends: {@code connection-lost} (the connection ended before the answer, and the request
 * is not one the device sends again), {@code device-stopped} (the device stopped before the answer).
 */
public class RoostFrameException extends RuntimeException {

    public static final String CONNECTION_LOST = "connection-lost";
    public static final String DEVICE_STOPPED = "device-stopped";

    private final String code;

    public RoostFrameException(String code, String message) {
        super(code + (message == null || message.isEmpty() ? "" : ": " + message));
        this.code = code;
    }

    public String code() {
        return code;
    }
}
