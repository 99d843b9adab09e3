package io.roost.client.device;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The protocol's frames: one JSON object each, with the envelope {@code v}, {@code type}, {@code tm}. */
final class Frames {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private Frames() {
    }

    /** A new frame of {@code type} with its envelope. */
    static ObjectNode frame(String type) {
        return MAPPER.createObjectNode().put("v", 1).put("type", type).put("tm", System.currentTimeMillis());
    }

    static String encode(ObjectNode frame) {
        return frame.toString();
    }

    /** The frame in {@code text}; {@link IllegalArgumentException} if it is not one JSON object with a type. */
    static ObjectNode decode(String text) {
        JsonNode node;
        try {
            node = MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
        }
        if (!(node instanceof ObjectNode frame) || !frame.path("type").isTextual()) {
            throw new IllegalArgumentException("not a frame (one JSON object with a type): " + abbreviated(text));
        }
        return frame;
    }

    /** An op answer's request seq as the device wrote it (a string), or null. */
    static String requestSeq(ObjectNode frame) {
        JsonNode seq = frame.get("seq");
        return seq == null || seq.isNull() ? null : seq.asText();
    }

    static boolean ok(ObjectNode ret) {
        return "ok".equals(ret.path("result").asText());
    }

    static RoostFrameException failure(ObjectNode ret) {
        return new RoostFrameException(ret.path("code").asText("unknown"), ret.path("message").asText(""));
    }

    private static String abbreviated(String text) {
        return text.length() <= 200 ? text : text.substring(0, 200) + "…";
    }
}
