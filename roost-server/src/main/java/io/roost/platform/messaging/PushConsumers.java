package io.roost.platform.messaging;

import io.roost.platform.config.NodeIdentity;
import io.roost.platform.metrics.PlatformMeters;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.common.UtilAll;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;

/**
 * Builds push consumers for the modules' {@code events} packages. The message is acknowledged
 * (CONSUME_SUCCESS) only when the handler returned, i.e. after its transaction committed; a
 * failure is never swallowed but answered with RECONSUME_LATER, so RocketMQ redelivers
 * ({@link MeteredListener}, which also counts them by consumer group).
 */
@ApplicationScoped
public class PushConsumers {

    private static final Logger LOG = Logger.getLogger(PushConsumers.class.getName());

    @Inject
    RocketMqSettings settings;

    @Inject
    NodeIdentity node;

    @EJB
    TopicProvisioner topics;

    @Inject
    PlatformMeters meters;

    /**
     * How far before its start a consumer group that has no offset yet begins: the broker's clock
     * may lag the node's, and what this replays is deduplicated by the consumers.
     */
    static final Duration FIRST_START_MARGIN = Duration.ofMinutes(5);

    /** Starts a consumer; the caller keeps it and calls {@code shutdown()} when it stops. */
    public DefaultMQPushConsumer start(ConsumerSpec spec, MessageBatchHandler handler) {
        RocketMqSettings.configureClients();
        topics.ensure(spec.topic());
        DefaultMQPushConsumer consumer = configure(spec, settings.nameServer(), node.nodeId(), System.currentTimeMillis());
        try {
            consumer.subscribe(spec.topic(), spec.tags());
            String label = groupLabel(spec.group(), node.nodeId());
            meters.lag(label, this, c -> c.lastLag(spec.group()));
            consumer.registerMessageListener(new MeteredListener(spec, handler, meters.consumer(label),
                    consumer.getDefaultMQPushConsumerImpl().getMaxReconsumeTimes(), System::currentTimeMillis));
            consumer.start();
        } catch (MQClientException e) {
            throw new IllegalStateException("Cannot start consumer " + spec.group() + " on " + spec.topic(), e);
        }
        LOG.info(() -> "Consumer " + spec.group() + " subscribed to " + spec.topic() + " [" + spec.tags() + "]");
        started.put(spec.group() + "/" + spec.topic(), new Started(spec, consumer));
        return consumer;
    }

    /**
     * A consumer group's label on the meters: its name, less this node's id where the group is the
     * node's own ({@code roost-deliveries-node-3} is {@code roost-deliveries-node}), so that every
     * node has the same fixed set of labels, one per consumer spec of the code.
     */
    static String groupLabel(String group, int nodeId) {
        String own = "-node-" + nodeId;
        return group.endsWith(own) ? group.substring(0, group.length() - own.length()) + "-node" : group;
    }

    /**
     * A consumer as {@link #start} runs it, not yet started. A queue the group has no offset for
     * (its first start, or a queue added later) is read from the messages stored since shortly
     * before {@code nowMillis}. RocketMQ's usual CONSUME_FROM_LAST_OFFSET asks the broker for the
     * queue's newest offset in a second round trip when it finds no offset: messages sent between
     * the two (a node that publishes right after it deployed) were skipped, never consumed.
     */
    static DefaultMQPushConsumer configure(ConsumerSpec spec, String nameServer, int nodeId, long nowMillis) {
        DefaultMQPushConsumer consumer = new DefaultMQPushConsumer(spec.group());
        consumer.setNamesrvAddr(nameServer);
        consumer.setInstanceName("roost-node-" + nodeId + "-" + ProcessHandle.current().pid());
        consumer.setVipChannelEnabled(false);
        consumer.setPollNameServerInterval(RocketMqSettings.ROUTE_POLL_MS);
        consumer.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_TIMESTAMP);
        consumer.setConsumeTimestamp(UtilAll.timeMillisToHumanString3(nowMillis - FIRST_START_MARGIN.toMillis()));
        consumer.setConsumeMessageBatchMaxSize(spec.batchSize());
        consumer.setPullBatchSize(Math.max(32, spec.batchSize()));
        consumer.setConsumeThreadMin(spec.threads());
        consumer.setConsumeThreadMax(spec.threads());
        return consumer;
    }

    private record Started(ConsumerSpec spec, DefaultMQPushConsumer consumer) {
    }

    private final java.util.concurrent.ConcurrentHashMap<String, Started> started = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Messages not yet consumed per consumer group of this node's running consumers: the broker's
     * newest offset minus the group's committed offset, over the topic's queues (-1 if the broker
     * could not be asked).
     */
    public java.util.Map<String, Long> lag() {
        // two broker round trips per queue: dashboards polling every few seconds share one answer
        LagSnapshot last = lastLag;
        if (last != null && System.nanoTime() - last.at() < LAG_TTL_NANOS) {
            return last.lag();
        }
        java.util.Map<String, Long> lag = measureLag();
        lastLag = new LagSnapshot(System.nanoTime(), lag);
        return lag;
    }

    private record LagSnapshot(long at, java.util.Map<String, Long> lag) {
    }

    /**
     * A group's lag as last measured (-1 before the first or when unknown), for the meters: a
     * scrape never waits on the broker; {@link ConsumerLagSampler} measures every 10 s.
     */
    double lastLag(String group) {
        LagSnapshot last = lastLag;
        return last == null ? -1 : last.lag().getOrDefault(group, -1L);
    }

    private static final long LAG_TTL_NANOS = 2_000_000_000L;
    private volatile LagSnapshot lastLag;

    private java.util.Map<String, Long> measureLag() {
        java.util.Map<String, Long> lag = new java.util.TreeMap<>();
        for (Started s : started.values()) {
            if (s.consumer().getDefaultMQPushConsumerImpl().getServiceState() != org.apache.rocketmq.common.ServiceState.RUNNING) {
                continue;
            }
            long total = 0;
            try {
                // the queues this client knows for the topic (none yet: no message was ever sent to it, so nothing is behind)
                var queues = s.consumer().getDefaultMQPushConsumerImpl().getRebalanceImpl().getTopicSubscribeInfoTable()
                        .getOrDefault(s.spec().topic(), java.util.Set.of());
                for (org.apache.rocketmq.common.message.MessageQueue mq : queues) {
                    long newest = s.consumer().getDefaultMQPushConsumerImpl().maxOffset(mq);
                    long done = s.consumer().getOffsetStore().readOffset(mq,
                            org.apache.rocketmq.client.consumer.store.ReadOffsetType.READ_FROM_STORE);
                    total += Math.max(0, newest - Math.max(0, done));
                }
            } catch (Exception e) {
                LOG.log(Level.FINE, "lag of " + s.spec().group() + " unknown", e);
                total = -1;
            }
            lag.merge(s.spec().group(), total, (a, b) -> a < 0 || b < 0 ? -1 : a + b);
        }
        return java.util.Collections.unmodifiableMap(lag);
    }
}
