package io.roost.platform.messaging;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.EJB;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.Timer;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.rocketmq.client.exception.MQClientException;
import org.apache.rocketmq.client.impl.MQClientAPIImpl;
import org.apache.rocketmq.common.MixAll;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.constant.PermName;
import org.apache.rocketmq.common.topic.TopicValidator;
import org.apache.rocketmq.remoting.exception.RemotingException;
import org.apache.rocketmq.remoting.protocol.ResponseCode;
import org.apache.rocketmq.remoting.protocol.body.ClusterInfo;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;
import org.apache.rocketmq.remoting.protocol.route.TopicRouteData;

/**
 * Makes every topic Roost uses exist before the first event. A consumer started on a topic the
 * name server does not know finds its queues only at a later route poll and rebalance, so the
 * first events of a fresh install (or of a topic added by an upgrade) arrived 20 s late.
 *
 * <p>At start-up each declared topic is looked up on the name server; a missing one is created on
 * every master broker ({@code ROOST_ROCKETMQ_CREATE_TOPICS=true}, the default; the broker must accept
 * admin requests) or reported by name with the command that creates it. While topics are missing
 * (a broker that refuses, or none reachable at start-up), the check repeats every 10 s and
 * {@code /api/health} says which. Consumers ask for their own topic before they subscribe.
 */
@Singleton
@Startup
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class TopicProvisioner {

    private static final Logger LOG = Logger.getLogger(TopicProvisioner.class.getName());
    private static final long RPC_TIMEOUT_MS = 3000;
    private static final long RETRY_MS = 10_000;

    @Inject
    @Any
    Instance<TopicDeclaration> declarations;

    @EJB
    RocketMqProducer producer;

    @Inject
    RocketMqSettings settings;

    @Resource
    TimerService timers;

    private final Set<String> ready = ConcurrentHashMap.newKeySet();
    /** Topic → why it is not there yet; empty once every declared topic exists. */
    private final Map<String, String> missing = new ConcurrentHashMap<>();

    @PostConstruct
    void start() {
        Set<String> declared = new TreeSet<>();
        declarations.forEach(d -> declared.addAll(d.topics()));
        declared.forEach(t -> missing.put(t, "not checked yet"));
        if (!ensureMissing()) {
            timers.createIntervalTimer(RETRY_MS, RETRY_MS, new TimerConfig("topic-provisioning", false));
        }
    }

    @Timeout
    void retry(Timer timer) {
        if (ensureMissing()) {
            timer.cancel();
        }
    }

    /** Makes one topic exist (a consumer's, before it subscribes); failures are logged, never thrown. */
    public void ensure(String topic) {
        if (!ready.contains(topic)) {
            missing.putIfAbsent(topic, "not checked yet");
            ensureMissing();
        }
    }

    /** Declared or consumed topics that do not exist yet, with the reason; empty when all do. */
    public Map<String, String> missing() {
        return new TreeMap<>(missing);
    }

    private synchronized boolean ensureMissing() {
        if (missing.isEmpty()) {
            return true;
        }
        MQClientAPIImpl api = producer.clientApi();
        for (String topic : new TreeSet<>(missing.keySet())) {
            try {
                if (!exists(api, topic)) {
                    if (!settings.createTopics()) {
                        missing.put(topic, "does not exist");
                        continue;
                    }
                    create(api, topic);
                    if (!awaitRoute(api, topic)) {
                        missing.put(topic, "created, but the name server has no route for it yet");
                        continue;
                    }
                    LOG.info(() -> "Created RocketMQ topic " + topic + " (" + settings.topicQueues() + " queues)");
                }
                missing.remove(topic);
                ready.add(topic);
            } catch (Exception e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                missing.put(topic, e.getClass().getSimpleName() + ": " + e.getMessage());
                LOG.log(Level.FINE, "topic " + topic, e);
                if (e instanceof RemotingException) {
                    break; // no name server or broker answers: do not wait out a timeout per topic
                }
            }
        }
        if (missing.isEmpty()) {
            LOG.info(() -> "RocketMQ topics ready: " + new TreeSet<>(ready));
            return true;
        }
        LOG.severe(() -> "RocketMQ topics missing " + missing + "; Roost retries every " + RETRY_MS / 1000
                + " s. Create them on the cluster (or allow ROOST_ROCKETMQ_CREATE_TOPICS), e.g. "
                + String.join("; ", missing.keySet().stream().map(this::createCommand).toList()));
        return false;
    }

    /** The mqadmin command that creates the topic as Roost would. */
    String createCommand(String topic) {
        return "mqadmin updateTopic -n '" + settings.nameServer() + "' -c <cluster> -t " + topic + " -r "
                + settings.topicQueues() + " -w " + settings.topicQueues();
    }

    private static boolean exists(MQClientAPIImpl api, String topic) throws Exception {
        try {
            TopicRouteData route = api.getTopicRouteInfoFromNameServer(topic, RPC_TIMEOUT_MS);
            return route != null && !route.getQueueDatas().isEmpty();
        } catch (MQClientException e) {
            if (e.getResponseCode() == ResponseCode.TOPIC_NOT_EXIST) {
                return false;
            }
            throw e;
        }
    }

    /** The broker registers a new topic with the name server as it creates it; allow a moment. */
    private static boolean awaitRoute(MQClientAPIImpl api, String topic) throws Exception {
        for (int i = 0; i < 15; i++) {
            if (exists(api, topic)) {
                return true;
            }
            Thread.sleep(200);
        }
        return false;
    }

    /** On every master broker of every cluster the name server knows (what mqadmin updateTopic -c does). */
    private void create(MQClientAPIImpl api, String topic) throws Exception {
        ClusterInfo cluster = api.getBrokerClusterInfo(RPC_TIMEOUT_MS);
        int brokers = 0;
        for (BrokerData broker : cluster.getBrokerAddrTable().values()) {
            String master = broker.getBrokerAddrs().get(MixAll.MASTER_ID);
            if (master != null) {
                TopicConfig config = new TopicConfig(topic, settings.topicQueues(), settings.topicQueues(),
                        PermName.PERM_READ | PermName.PERM_WRITE);
                api.createTopic(master, TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC, config, RPC_TIMEOUT_MS);
                brokers++;
            }
        }
        if (brokers == 0) {
            throw new IllegalStateException("no master broker is registered with the name server");
        }
    }
}
