package io.roost.social;

import io.roost.platform.config.Durations;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Locale;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Social configuration (environment variables in the README). */
@ApplicationScoped
public class SocialSettings {

    /** follow: Weibo-like, no consent; approval: WeChat-like friend requests (seed 001 §2.2.2). */
    public enum Mode { FOLLOW, APPROVAL }

    @Inject
    @ConfigProperty(name = "roost.social.mode", defaultValue = "approval")
    String mode;

    @Inject
    @ConfigProperty(name = "roost.social.stranger-message-limit", defaultValue = "3")
    int strangerMessageLimit;

    @Inject
    @ConfigProperty(name = "roost.social.request-ttl", defaultValue = "7d")
    String requestTtl;

    public Mode mode() {
        return Mode.valueOf(mode.trim().toUpperCase(Locale.ROOT));
    }

    /** Follow mode: messages a non-friend may send before being followed back (chat enforces it). */
    public int strangerMessageLimit() {
        return strangerMessageLimit;
    }

    public Duration requestTtl() {
        return Durations.parse(requestTtl);
    }
}
