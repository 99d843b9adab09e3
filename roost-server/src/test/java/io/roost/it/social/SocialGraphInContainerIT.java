package io.roost.it.social;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.roost.identity.AccountService;
import io.roost.it.InContainer;
import io.roost.it.InContainerUsers;
import io.roost.platform.problem.ProblemException;
import io.roost.social.SocialGraph;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The graph service itself, in the container against the real database: follow-mode semantics
 * (the REST tests run the deployment in approval mode) and concurrent toggles.
 */
@InContainer
class SocialGraphInContainerIT {

    @Inject
    SocialGraph graph;

    @Inject
    AccountService accounts;

    @PersistenceContext(unitName = "roost")
    EntityManager em;

    @Inject
    jakarta.transaction.UserTransaction tx;

    long user() {
        return InContainerUsers.create(accounts, "sg-");
    }

    @Test
    void mutualFollowsAreFriendsAndCountsFollowTheRows() {
        long a = user();
        long b = user();
        assertTrue(graph.follow(a, b));
        assertFalse(graph.follow(a, b), "following twice writes nothing");
        assertTrue(graph.isFollower(a, b));
        assertFalse(graph.isFollower(b, a));
        assertFalse(graph.relation(a, b).friends());
        assertEquals(SocialGraph.SendDecision.STRANGER, graph.canSend(b, a));
        assertTrue(graph.follow(b, a));
        assertTrue(graph.relation(a, b).friends());
        assertEquals(List.of(b), graph.friends(a, null, null, 10));
        assertEquals(SocialGraph.SendDecision.FRIEND, graph.canSend(b, a));
        assertEquals(new SocialGraph.Counts(1, 1), graph.counts(a));
        assertTrue(graph.unfollow(b, a));
        assertFalse(graph.unfollow(b, a));
        assertEquals(new SocialGraph.Counts(0, 1), graph.counts(a));
        assertEquals(new SocialGraph.Counts(1, 0), graph.counts(b));
        assertEquals(List.of(), graph.friends(a, null, null, 10));

        assertTrue(graph.block(a, b));
        assertEquals(SocialGraph.SendDecision.BLOCKED, graph.canSend(b, a));
        ProblemException refused = assertThrows(ProblemException.class, () -> graph.follow(b, a));
        assertEquals(403, refused.status());
        assertEquals("self-relation", assertThrows(ProblemException.class, () -> graph.follow(a, a)).type());
        assertEquals(404, assertThrows(ProblemException.class, () -> graph.follow(a, 42L)).status());
    }

    @Test
    void anExpiredRequestCannotBeAcceptedAndMayBeAskedAgain() throws Exception {
        long a = user();
        long b = user();
        SocialGraph.FriendRequest first = graph.requestFriend(a, b, "hello").request();
        tx.begin();
        em.createNativeQuery("UPDATE social_friend_request SET expires_at = now() - interval '1 second' WHERE id = :id")
                .setParameter("id", first.id()).executeUpdate();
        tx.commit();
        ProblemException late = assertThrows(ProblemException.class, () -> graph.answer(b, first.id(), "accept", null));
        assertEquals("request-not-pending", late.type());
        assertTrue(late.getMessage().contains("expired"), late.getMessage());
        assertTrue(graph.requests(b, true, "PENDING", null, 10).isEmpty(), "an expired request is not pending");
        SocialGraph.RequestOutcome again = graph.requestFriend(a, b, "hello again");
        assertTrue(again.created());
        assertEquals("EXPIRED", graph.find(first.id()).orElseThrow().status());
        assertEquals("ACCEPTED", graph.answer(b, again.request().id(), "accept", null).status());
        assertTrue(graph.relation(a, b).friends());
    }

    @Test
    void fiftyParallelTogglesLeaveOneConsistentEdge() throws Exception {
        long seed = System.nanoTime();
        System.out.println("SocialGraphInContainerIT seed=" + seed);
        Random random = new Random(seed);
        long star = user();
        List<Long> fans = List.of(user(), user(), user());
        ExecutorService pool = Executors.newFixedThreadPool(16);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            long fan = fans.get(random.nextInt(fans.size()));
            boolean follow = random.nextBoolean();
            boolean back = random.nextInt(4) == 0; // the star follows back now and then: crossing updates
            done.add(pool.submit(() -> {
                start.await();
                if (back) {
                    if (follow) {
                        graph.follow(star, fan);
                    } else {
                        graph.unfollow(star, fan);
                    }
                } else if (follow) {
                    graph.follow(fan, star);
                } else {
                    graph.unfollow(fan, star);
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        for (long u : concat(star, fans)) {
            long followers = ((Number) em.createNativeQuery("SELECT count(*) FROM social_follow WHERE followee_id = :u")
                    .setParameter("u", u).getSingleResult()).longValue();
            long following = ((Number) em.createNativeQuery("SELECT count(*) FROM social_follow WHERE follower_id = :u")
                    .setParameter("u", u).getSingleResult()).longValue();
            assertEquals(new SocialGraph.Counts(followers, following), graph.counts(u), "counts of " + u + " (seed " + seed + ")");
        }
    }

    private static List<Long> concat(long first, List<Long> rest) {
        List<Long> all = new ArrayList<>(rest);
        all.add(first);
        return all;
    }
}
