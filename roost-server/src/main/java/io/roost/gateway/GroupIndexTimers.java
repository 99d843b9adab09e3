package io.roost.gateway;

import io.roost.chat.group.GroupChat;
import io.roost.presence.session.ClusterNode;
import io.roost.presence.session.DeviceSessions;
import jakarta.annotation.PostConstruct;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The online index's rows in {@code group_chat_node}: a starting node forgets what its previous
 * run published (before it accepts a connection); every 10 s each node unpublishes the groups it
 * holds no member connection of any more, and the rows of nodes that count as lost go.
 */
@Singleton
@Startup
@DependsOn("DatabaseMigrator")
public class GroupIndexTimers {

    private static final Logger LOG = Logger.getLogger(GroupIndexTimers.class.getName());

    @Inject
    GroupFanout fanout;

    @Inject
    GroupChat groupChat;

    @Inject
    DeviceSessions sessions;

    @PostConstruct
    void start() {
        fanout.started();
    }

    @Schedule(hour = "*", minute = "*", second = "*/10", persistent = false, info = "group-index-sweep")
    void sweep() {
        try {
            fanout.sweep();
            java.util.List<Integer> alive = sessions.nodes().stream().filter(ClusterNode::alive).map(ClusterNode::id).toList();
            if (!alive.isEmpty()) { // an empty table is a database being reset, not a cluster without nodes
                groupChat.forgetNodesExcept(alive);
            }
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "group index sweep failed; the next one tries again", e);
        }
    }
}
