package io.roost.presence.rtc;

import io.roost.platform.cluster.Draining;
import io.roost.platform.json.Jsonp;
import io.roost.platform.retry.Backoff;
import io.roost.presence.store.RtcKickStore;
import jakarta.ejb.ConcurrencyManagement;
import jakarta.ejb.ConcurrencyManagementType;
import jakarta.ejb.DependsOn;
import jakarta.ejb.EJB;
import jakarta.ejb.Schedule;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * Kicks users who left with reason 999 (abnormal frequent join/leave), a delay after the leave,
 * through Agora's kicking-rule REST API: {@code POST {base}/dev/v1/kicking-rule}. The due kicks
 * are rows (rtc_channel_kick), leased by a timer tick on any node ({@code FOR UPDATE SKIP LOCKED}
 * with due_at moved on: each attempt is made by one node, and a dead node's lease runs out for
 * another); the HTTP call runs outside any transaction; failures back off (2, 4, 8 ... s, at most
 * 5 min) and give up after 10 attempts.
 */
@Singleton
@Startup
@DependsOn("DatabaseMigrator")
@ConcurrencyManagement(ConcurrencyManagementType.BEAN)
public class RtcKicker {

    @Inject
    Draining draining;

    private static final Logger LOG = Logger.getLogger(RtcKicker.class.getName());
    static final int MAX_ATTEMPTS = 10;

    @EJB
    RtcKickStore kicks;

    @Inject
    RtcSettings settings;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final AtomicBoolean running = new AtomicBoolean();

    @Schedule(hour = "*", minute = "*", second = "*/1", persistent = false, info = "rtc-kicker")
    void tick() {
        if (draining.isDraining()) {
            return; // a draining node claims no more work
        }
        if (!running.compareAndSet(false, true)) {
            return;
        }
        try {
            for (RtcKickStore.Kick kick : kicks.leaseDue(20)) {
                execute(kick);
            }
        } finally {
            running.set(false);
        }
    }

    private void execute(RtcKickStore.Kick kick) {
        if (settings.customerId().isEmpty() || settings.customerSecret().isEmpty() || settings.appId().isEmpty()) {
            kicks.failed(kick, "Agora API credentials are not configured (ROOST_AGORA_CUSTOMER_ID, "
                    + "ROOST_AGORA_CUSTOMER_SECRET, ROOST_AGORA_APP_ID)", 0, 0);
            return;
        }
        String body = Jsonp.PROVIDER.createObjectBuilder()
                .add("appid", settings.appId().get())
                .add("cname", kick.channelName())
                .add("uid", kick.uid())
                .add("time", settings.kickMinutes())
                .add("privileges", Jsonp.PROVIDER.createArrayBuilder().add("join_channel"))
                .build().toString();
        String credentials = Base64.getEncoder().encodeToString(
                (settings.customerId().get() + ":" + settings.customerSecret().get()).getBytes(StandardCharsets.UTF_8));
        HttpRequest request = HttpRequest.newBuilder(URI.create(settings.apiBase() + "/dev/v1/kicking-rule"))
                .timeout(Duration.ofSeconds(10))
                .header("Authorization", "Basic " + credentials)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() / 100 == 2) {
                JsonObject json = Jsonp.PROVIDER.createReader(new StringReader(response.body())).readObject();
                if ("success".equals(json.getString("status", null)) && json.containsKey("id")) {
                    kicks.succeeded(kick, json.getJsonNumber("id").longValue());
                    LOG.info(() -> "Kicked uid " + kick.uid() + " from " + kick.channelName());
                    return;
                }
            }
            retryLater(kick, "HTTP " + response.statusCode() + ": " + response.body());
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            retryLater(kick, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private void retryLater(RtcKickStore.Kick kick, String error) {
        long backoff = Backoff.seconds(kick.attempts());
        LOG.warning(() -> "Kick of uid " + kick.uid() + " in " + kick.channelName() + " failed (attempt "
                + kick.attempts() + "), retry in " + backoff + " s: " + error);
        kicks.failed(kick, error, backoff, MAX_ATTEMPTS);
    }
}
