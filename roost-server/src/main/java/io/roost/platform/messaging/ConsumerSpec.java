package io.roost.platform.messaging;

import java.util.Objects;

/**
 * A push consumer's subscription: group, topic, tag expression ({@code "*"} or {@code "a || b"}),
 * and how many messages one call of the handler may get (batches make multi-row statements).
 */
public record ConsumerSpec(String group, String topic, String tags, int batchSize, int threads) {

    public ConsumerSpec {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(topic, "topic");
        tags = tags == null || tags.isBlank() ? "*" : tags;
        if (batchSize < 1 || batchSize > 1024) {
            throw new IllegalArgumentException("batchSize must be 1..1024");
        }
        if (threads < 1 || threads > 64) {
            throw new IllegalArgumentException("threads must be 1..64");
        }
    }

    public static ConsumerSpec of(String group, String topic, String tags) {
        return new ConsumerSpec(group, topic, tags, 1, 4);
    }
}
