package io.roost.it;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.impl.MQClientAPIImpl;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.constant.PermName;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.topic.TopicValidator;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;

/**
 * A test's own view of the broker: does a topic exist, give it more queues, send to one queue. It
 * asks the broker itself rather than through TopicProvisioner's lookups, so a wrong lookup there
 * cannot make the topic tests pass.
 */
public final class BrokerAdmin implements AutoCloseable {

    private final DefaultMQProducer producer;

    public BrokerAdmin(String nameServer) throws MQClientException {
        producer = producer(nameServer, "admin");
    }

    /** A started producer of the test's own (group and instance {@code roost-it-<name>-<random>}); the caller shuts it down. */
    public static DefaultMQProducer producer(String nameServer, String name) throws MQClientException {
        String id = "roost-it-" + name + "-" + UUID.randomUUID().toString().substring(0, 8);
        DefaultMQProducer producer = new DefaultMQProducer(id);
        producer.setNamesrvAddr(nameServer);
        producer.setInstanceName(id);
        producer.setVipChannelEnabled(false);
        producer.start();
        return producer;
    }

    private MQClientAPIImpl api() {
        return producer.getDefaultMQProducerImpl().getMqClientFactory().getMQClientAPIImpl();
    }

    /** Whether the name server has a route (with queues) for the topic. */
    public boolean exists(String topic) throws Exception {
        try {
            return !api().getTopicRouteInfoFromNameServer(topic, 3000).getQueueDatas().isEmpty();
        } catch (MQClientException e) {
            if (e.getResponseCode() == ResponseCode.TOPIC_NOT_EXIST) {
                return false;
            }
            throw e;
        }
    }

    /** Sets the topic's read and write queue counts on every master broker (mqadmin updateTopic). */
    public void setQueues(String topic, int queues) throws Exception {
        for (BrokerData broker : api().getBrokerClusterInfo(3000).getBrokerAddrTable().values()) {
            api().createTopic(broker.getBrokerAddrs().get(MixAll.MASTER_ID), TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC,
                    new TopicConfig(topic, queues, queues, PermName.PERM_READ | PermName.PERM_WRITE), 3000);
        }
    }

    /** Sends to one queue of the (first) broker, asking the name server for the route afresh. */
    public void send(String topic, int queueId, String body) throws Exception {
        String broker = producer.fetchPublishMessageQueues(topic).get(0).getBrokerName();
        producer.send(new Message(topic, "*", body.getBytes(StandardCharsets.UTF_8)), new MessageQueue(topic, broker, queueId));
    }

    @Override
    public void close() {
        producer.shutdown();
    }
}
