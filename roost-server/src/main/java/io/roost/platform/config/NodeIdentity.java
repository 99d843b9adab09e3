package io.roost.platform.config;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Who this node is and in which mode it runs. {@code ROOST_NODE_ID} (0..1023) must be unique per
 * node of a cluster: it is part of every snowflake id. {@code ROOST_MODE} is {@code prod} unless
 * set to {@code dev}; dev mode relaxes what a developer's machine cannot provide (admin password).
 */
@ApplicationScoped
public class NodeIdentity {

    @Inject
    @ConfigProperty(name = "roost.node.id", defaultValue = "0")
    int nodeId;

    @Inject
    @ConfigProperty(name = "roost.mode", defaultValue = "prod")
    String mode;

    public int nodeId() {
        return nodeId;
    }

    public boolean devMode() {
        return "dev".equalsIgnoreCase(mode);
    }
}
