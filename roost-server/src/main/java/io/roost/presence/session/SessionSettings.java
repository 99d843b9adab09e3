package io.roost.presence.session;

import io.roost.platform.config.DeviceTypes;
import io.roost.platform.config.Durations;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Device-session configuration (environment variables in the README). */
@ApplicationScoped
public class SessionSettings {

    /** What a second login of the same (uid, deviceType) does (Turms/OpenIM call it the same). */
    public enum Policy { KICK_OLD, REFUSE_NEW, ALLOW_MANY }

    @Inject
    DeviceTypes deviceTypes;

    @Inject
    @ConfigProperty(name = "roost.session.heartbeat-interval", defaultValue = "60s")
    String heartbeatInterval;

    @Inject
    @ConfigProperty(name = "roost.session.heartbeat-timeout")
    Optional<String> heartbeatTimeout;

    /** How long a node may go without heartbeating before the others count it as lost and end its sessions. */
    @Inject
    @ConfigProperty(name = "roost.node.timeout", defaultValue = "30s")
    String nodeTimeoutSetting;

    /** e.g. "web=allow-many,pad=refuse-new"; unlisted types use kick-old. */
    @Inject
    @ConfigProperty(name = "roost.session.policies")
    Optional<String> policies;

    /** Parsed once: every connection's open, hello and login ask (a bad value fails the first use). */
    private Duration interval;
    private Duration timeout;
    private Duration nodeTimeout;
    private Map<String, Policy> policyByType;

    @PostConstruct
    void init() {
        interval = Durations.parse(heartbeatInterval);
        timeout = heartbeatTimeout.map(Durations::parse).orElse(interval.multipliedBy(3));
        nodeTimeout = Durations.parse(nodeTimeoutSetting);
        Duration leastNodeTimeout = NodeRegistry.HEARTBEAT_PERIOD.multipliedBy(3); // shorter: a node lost for one late heartbeat
        if (nodeTimeout.compareTo(leastNodeTimeout) < 0) {
            throw new IllegalStateException("ROOST_NODE_TIMEOUT: " + nodeTimeoutSetting + " is under " + leastNodeTimeout.toSeconds()
                    + "s, three of a node's heartbeats");
        }
        Map<String, Policy> byType = new HashMap<>();
        for (String entry : policies.orElse("").split(",")) {
            int eq = entry.indexOf('=');
            if (eq >= 0) {
                String type = entry.substring(0, eq).trim().toLowerCase(Locale.ROOT);
                byType.put(type, policy(type, entry.substring(eq + 1).trim()));
            }
        }
        policyByType = Map.copyOf(byType);
    }

    private static Policy policy(String deviceType, String name) {
        try {
            return Policy.valueOf(name.toUpperCase(Locale.ROOT).replace('-', '_'));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("ROOST_SESSION_POLICIES: '" + name + "' for " + deviceType
                    + " is not one of kick-old, refuse-new, allow-many", e);
        }
    }

    public Set<String> deviceTypes() {
        return deviceTypes.all();
    }

    public Duration heartbeatInterval() {
        return interval;
    }

    /** Silent longer than this = logged out (default three intervals). */
    public Duration heartbeatTimeout() {
        return timeout;
    }

    /** A node that has not heartbeated for this long counts as lost (default 30 s; at least 15 s). */
    public Duration nodeTimeout() {
        return nodeTimeout;
    }

    public Policy policy(String deviceType) {
        return policyByType.getOrDefault(deviceType, Policy.KICK_OLD);
    }
}
