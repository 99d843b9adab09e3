package io.roost.it;

import jakarta.json.JsonObject;
import java.util.concurrent.BlockingQueue;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test class's listener on one RocketMQ topic, started before its tests and closed after them:
 * {@code @RegisterExtension static final TopicEvents events = new TopicEvents("roost-chat-events", "msgId");}
 * then {@code events.events(msgId)} as with {@link TopicListener}.
 */
public final class TopicEvents implements BeforeAllCallback, AfterAllCallback {

    private final String topic;
    private final String key;
    private TopicListener listener;

    public TopicEvents(String topic, String key) {
        this.topic = topic;
        this.key = key;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        listener = TopicListener.start(topic, key);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (listener != null) {
            listener.close();
        }
    }

    /** The events whose key field is {@code value}, as they arrive. */
    public BlockingQueue<JsonObject> events(String value) {
        return listener.events(value);
    }
}
