package io.roost.platform.ids;

import io.roost.platform.config.NodeIdentity;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** The node's snowflake id source; every module takes its ids from here. */
@ApplicationScoped
public class IdGenerator {

    @Inject
    NodeIdentity node;

    private Snowflake snowflake;

    @PostConstruct
    void init() {
        snowflake = new Snowflake(node.nodeId());
    }

    public long nextId() {
        return snowflake.nextId();
    }
}
