package io.roost.presence.rtc;

import io.roost.platform.config.Durations;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Configuration of the Agora NCS integration (environment variables in the README). */
@ApplicationScoped
public class RtcSettings {

    @Inject
    @ConfigProperty(name = "roost.agora.secret")
    Optional<String> secrets;

    @Inject
    @ConfigProperty(name = "roost.presence.quit-retention", defaultValue = "60s")
    String quitRetention;

    @Inject
    @ConfigProperty(name = "roost.agora.kick-delay", defaultValue = "60s")
    String kickDelay;

    @Inject
    @ConfigProperty(name = "roost.agora.kick-minutes", defaultValue = "10")
    int kickMinutes;

    @Inject
    @ConfigProperty(name = "roost.agora.api-base", defaultValue = "https://api.agora.io")
    String apiBase;

    @Inject
    @ConfigProperty(name = "roost.agora.customer-id")
    Optional<String> customerId;

    @Inject
    @ConfigProperty(name = "roost.agora.customer-secret")
    Optional<String> customerSecret;

    @Inject
    @ConfigProperty(name = "roost.agora.app-id")
    Optional<String> appId;

    @Inject
    @ConfigProperty(name = "roost.presence.rtc.batch-max", defaultValue = "500")
    int batchMax;

    /** Webhook secrets; empty means every notification is refused. */
    public List<String> secrets() {
        return secrets.map(s -> Arrays.stream(s.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList())
                .orElse(List.of());
    }

    public Duration quitRetention() {
        return Durations.parse(quitRetention);
    }

    public Duration kickDelay() {
        return Durations.parse(kickDelay);
    }

    public int kickMinutes() {
        return kickMinutes;
    }

    public String apiBase() {
        return apiBase.endsWith("/") ? apiBase.substring(0, apiBase.length() - 1) : apiBase;
    }

    public Optional<String> customerId() {
        return customerId;
    }

    public Optional<String> customerSecret() {
        return customerSecret;
    }

    public Optional<String> appId() {
        return appId;
    }

    public int batchMax() {
        return batchMax;
    }
}
