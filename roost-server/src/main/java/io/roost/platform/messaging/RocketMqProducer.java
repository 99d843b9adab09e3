package io.roost.platform.messaging;

import io.roost.platform.config.NodeIdentity;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.impl.MQClientAPIImpl;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;

/**
 * The node's one RocketMQ producer. Modules do not send through it directly: they write to the
 * outbox, and the relay sends (durable before published). Starting needs no reachable broker;
 * sends fail until one is there, and the outbox keeps the messages meanwhile.
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class RocketMqProducer {

    private static final Logger LOG = Logger.getLogger(RocketMqProducer.class.getName());

    @Inject
    RocketMqSettings settings;

    @Inject
    NodeIdentity node;

    private DefaultMQProducer producer;

    @PostConstruct
    void start() {
        RocketMqSettings.configureClients();
        producer = new DefaultMQProducer("roost-producer");
        producer.setNamesrvAddr(settings.nameServer());
        producer.setInstanceName("roost-node-" + node.nodeId() + "-" + ProcessHandle.current().pid());
        producer.setVipChannelEnabled(false);
        producer.setPollNameServerInterval(RocketMqSettings.ROUTE_POLL_MS);
        producer.setSendMsgTimeout(settings.sendTimeoutMs());
        producer.setRetryTimesWhenSendFailed(1);
        try {
            producer.start();
        } catch (MQClientException e) {
            throw new IllegalStateException("Cannot start the RocketMQ producer for " + settings.nameServer(), e);
        }
        LOG.info(() -> "RocketMQ producer started, name server " + settings.nameServer());
    }

    @PreDestroy
    void stop() {
        producer.shutdown();
    }

    /**
     * Sends synchronously and returns the broker's message id; throws when the broker did not
     * store the message, so the caller (the outbox relay) keeps it for a later try.
     */
    public String send(long id, String topic, String tag, String key, String body) throws MessagingException {
        Message message = message(id, topic, tag, key, body);
        try {
            SendResult result = producer.send(message);
            if (result.getSendStatus() != SendStatus.SEND_OK) {
                // Stored, but not yet flushed/replicated as configured: we count it as sent, as the
                // broker does; consumers are idempotent if we ever send it again.
                LOG.fine(() -> "Send status " + result.getSendStatus() + " for " + topic + "/" + key);
            }
            return result.getMsgId();
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new MessagingException("Sending to " + topic + " failed: " + e.getMessage(), e);
        }
    }

    /** One message of a batch: the outbox id, the tag and key, the body. */
    public record Outgoing(long id, String tag, String key, String body) {
    }

    /** At most this many bytes of bodies in one batch (the broker refuses batches above 4 MB). */
    public static final int MAX_BATCH_BYTES = 1 << 20;

    /**
     * Sends messages of one topic in one request (they land in one queue, in this order); all or
     * nothing: throws when the broker did not store the batch, so the caller keeps every one of them.
     */
    public void sendBatch(String topic, List<Outgoing> batch) throws MessagingException {
        List<Message> messages = new ArrayList<>(batch.size());
        for (Outgoing m : batch) {
            messages.add(message(m.id(), topic, m.tag(), m.key(), m.body()));
        }
        try {
            producer.send(messages);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new MessagingException("Sending " + batch.size() + " messages to " + topic + " failed: " + e.getMessage(), e);
        }
    }

    private static Message message(long id, String topic, String tag, String key, String body) {
        Message message = new Message(topic, tag, key, body.getBytes(StandardCharsets.UTF_8));
        message.putUserProperty(MessageIds.PROPERTY, Long.toString(id));
        return message;
    }

    /** The started client's remoting API (name server and broker admin requests). */
    public MQClientAPIImpl clientApi() {
        return producer.getDefaultMQProducerImpl().getMqClientFactory().getMQClientAPIImpl();
    }

    /** Asks the name server for the cluster; true if at least one broker is registered. */
    public boolean brokerReachable(long timeoutMs) {
        try {
            var clusterInfo = clientApi().getBrokerClusterInfo(timeoutMs);
            return clusterInfo != null && !clusterInfo.getBrokerAddrTable().isEmpty();
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return false;
        }
    }
}
