package io.roost.platform.messaging;

import org.apache.rocketmq.common.message.MessageExt;

/**
 * The identity of a message for de-duplication. The outbox stamps every message with its row id,
 * which stays the same when the relay has to send it again; RocketMQ's own msgId would not.
 */
public final class MessageIds {

    public static final String PROPERTY = "roostId";

    private MessageIds() {
    }

    public static String of(MessageExt message) {
        String id = message.getUserProperty(PROPERTY);
        return id != null ? id : message.getMsgId();
    }
}
