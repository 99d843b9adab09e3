package io.roost.client.device;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A pushed frame without a type of its own here: {@code friendOp} and {@code groupOp} notices,
 * {@code chatRead} (another of the user's devices reported a read), {@code chatRecall}, and any
 * type the server adds later. {@code frame} is the whole frame as received.
 */
public record Notice(String type, ObjectNode frame) {
}
