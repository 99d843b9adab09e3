package io.roost.it.presence;

import io.roost.it.DeployedRoost;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Property: whatever the duplication and order of delivery, over 16 concurrent connections, every
 * (channel, uid) ends in the state of its highest-clientSeq event, and the maintained counts equal
 * the online members ({@link RtcConvergence}). Randomized; the seed is printed, and
 * {@code -Droost.seed=N} replays it.
 */
class RtcConvergenceIT extends DeployedRoost {

    @Test
    void scrambledDuplicatedHistoriesConvergeToTheHighestClientSeq() throws Exception {
        long firstSeed = Long.getLong("roost.seed", System.nanoTime());
        for (int round = 0; round < 2; round++) {
            RtcConvergence.round(firstSeed + round, 6, List.of(ncs()), http());
        }
    }
}
