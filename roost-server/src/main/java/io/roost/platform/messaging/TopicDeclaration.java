package io.roost.platform.messaging;

import java.util.Set;

/**
 * The RocketMQ topics a module publishes to (through the outbox or directly) and consumes from.
 * Each module has one such bean; {@link TopicProvisioner} makes every declared topic exist before
 * the first event, so no consumer starts on a topic its broker does not know yet.
 */
public interface TopicDeclaration {

    Set<String> topics();
}
