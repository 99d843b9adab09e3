package io.roost.gateway;

import io.roost.identity.TokenService;
import io.roost.platform.batch.GroupCommit;
import io.roost.presence.session.DeviceSessions;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedThreadFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * Device logins by group commit ({@link GroupCommit}): the logins that arrive together have their
 * tokens checked in one query and their sessions taken in one transaction. A login burst (a node
 * restart, a network flap: thousands of devices reconnecting at once) then costs a few
 * transactions a second instead of one per device, and each device still gets its answer only
 * after its session is committed.
 */
@ApplicationScoped
public class LoginQueue {

    private static final Logger LOG = Logger.getLogger(LoginQueue.class.getName());
    /**
     * One writer: the logins that arrive while a batch commits wait for the next one, so batches
     * grow with the load (12,000 connections: 15 logins a batch against 8.5 with two writers, and
     * 10–20 % less database CPU per login). Batches from other nodes still run concurrently.
     */
    static final int WRITERS = 1;
    static final int BATCH_MAX = 200;
    static final int CAPACITY = 20_000;
    static final long WAIT_SECONDS = 30;

    public enum Result { ACCEPTED, INVALID_TOKEN, DEVICE_MISMATCH, REFUSED, UNAVAILABLE }

    /** The outcome of one login; uid and epoch are set when accepted. */
    public record Outcome(Result result, long uid, long epoch) {

        static Outcome of(Result result) {
            return new Outcome(result, 0, 0);
        }
    }

    private record Attempt(String token, String deviceType, String deviceId, String connectionId,
                           CompletableFuture<Outcome> done) {
    }

    /** An attempt whose token fits its device, and the session it asks for. */
    private record Admitted(Attempt attempt, DeviceSessions.LoginRequest request) {
    }

    @Inject
    TokenService tokens;

    @Inject
    DeviceSessions sessions;

    @Resource
    ManagedThreadFactory threads;

    @Inject
    GatewayMeters meters;

    private final AtomicLong attempts = new AtomicLong();
    private final AtomicLong batches = new AtomicLong();
    private final AtomicLong largestBatch = new AtomicLong();

    /** This node's login counters since start: attempts, batches written (attempts / batches = the group-commit gain). */
    @Schema(name = "LoginStats") // in the OpenAPI document: another API type has the same simple name
    public record Stats(long attempts, long batches, long largestBatch, int queued) {
    }

    private final GroupCommit<Attempt> queue = new GroupCommit<>("device-login", CAPACITY, () -> BATCH_MAX, this::apply);

    @PostConstruct
    void start() {
        queue.start(threads, WRITERS);
    }

    @PreDestroy
    void stop() {
        queue.stop();
    }

    /** Logs a connection in with a token; returns once the session is committed (or refused). */
    public Outcome login(String token, String deviceType, String deviceId, String connectionId) {
        Attempt attempt = new Attempt(token, deviceType, deviceId, connectionId, new CompletableFuture<>());
        if (!queue.offer(attempt)) {
            return Outcome.of(Result.UNAVAILABLE); // back-pressure: the device retries later
        }
        try {
            return attempt.done.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Outcome.of(Result.UNAVAILABLE);
        } catch (ExecutionException | TimeoutException e) {
            LOG.log(Level.WARNING, "login of connection " + connectionId + " failed", e);
            return Outcome.of(Result.UNAVAILABLE);
        }
    }

    public Stats stats() {
        return new Stats(attempts.get(), batches.get(), largestBatch.get(), queue.queued());
    }

    /** Logins waiting in the queue now. */
    public int queued() {
        return queue.queued();
    }

    private void apply(List<Attempt> batch) {
        attempts.addAndGet(batch.size());
        batches.incrementAndGet();
        largestBatch.accumulateAndGet(batch.size(), Math::max);
        meters.loginBatch(batch.size());
        try {
            List<Optional<TokenService.Grant>> grants = tokens.authenticateAll(batch.stream().map(Attempt::token).toList());
            List<Admitted> admitted = new ArrayList<>();
            for (int i = 0; i < batch.size(); i++) {
                Attempt a = batch.get(i);
                Optional<TokenService.Grant> grant = grants.get(i);
                if (grant.isEmpty()) {
                    a.done.complete(Outcome.of(Result.INVALID_TOKEN));
                } else if (!grant.get().fits(a.deviceType, a.deviceId)) {
                    a.done.complete(Outcome.of(Result.DEVICE_MISMATCH));
                } else {
                    admitted.add(new Admitted(a, new DeviceSessions.LoginRequest(grant.get().accountId(), a.deviceType,
                            a.deviceId, a.connectionId)));
                }
            }
            if (admitted.isEmpty()) {
                return;
            }
            try {
                logIn(admitted);
            } catch (Exception e) { // also the checked HeuristicMixedException of a commit on a dying connection
                // Nothing of the batch was committed. One login's failure (or a deadlock with another
                // transaction) must not fail the others: each one again, in a transaction of its own.
                LOG.log(Level.FINE, "login batch of " + admitted.size() + " failed, retrying one by one", e);
                for (Admitted one : admitted) {
                    try {
                        logIn(List.of(one));
                    } catch (Exception single) {
                        one.attempt.done.completeExceptionally(single);
                    }
                }
            }
        } catch (Exception e) {
            batch.forEach(a -> a.done.completeExceptionally(e));
        }
    }

    /** One transaction for these logins; each attempt completes with its outcome after the commit. */
    private void logIn(List<Admitted> admitted) {
        List<DeviceSessions.Login> logins = sessions.loginAll(admitted.stream().map(Admitted::request).toList());
        for (int i = 0; i < admitted.size(); i++) {
            DeviceSessions.Login login = logins.get(i);
            Admitted a = admitted.get(i);
            a.attempt.done.complete(login.accepted()
                    ? new Outcome(Result.ACCEPTED, a.request.uid(), login.epoch()) : Outcome.of(Result.REFUSED));
        }
    }
}
