package io.roost.social;

import io.roost.platform.config.Durations;
import io.roost.platform.problem.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Locale;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Social configuration (environment variables in the README). */
@ApplicationScoped
public class SocialSettings {

    /** follow: Weibo-like, no consent; approval: WeChat-like friend requests. */
    public enum Mode { FOLLOW, APPROVAL }

    @Inject
    @ConfigProperty(name = "roost.social.mode", defaultValue = "approval")
    String mode;

    /** Who hears about a user's presence changes. */
    public enum Audience { FRIENDS, FOLLOWERS }

    @Inject
    @ConfigProperty(name = "roost.social.presence-audience")
    java.util.Optional<String> presenceAudience;

    @Inject
    @ConfigProperty(name = "roost.social.stranger-message-limit", defaultValue = "3")
    int strangerMessageLimit;

    @Inject
    @ConfigProperty(name = "roost.social.request-ttl", defaultValue = "7d")
    String requestTtl;

    /** 409 {@code wrong-social-mode} unless the deployment runs in {@code wanted} (REST and frames alike). */
    public void require(Mode wanted) {
        if (mode() != wanted) {
            throw ProblemException.conflict("wrong-social-mode", "This server runs the social graph in "
                    + mode().name().toLowerCase(Locale.ROOT) + " mode; this operation belongs to "
                    + wanted.name().toLowerCase(Locale.ROOT) + " mode.");
        }
    }

    public Mode mode() {
        return Mode.valueOf(mode.trim().toUpperCase(Locale.ROOT));
    }

    /** The mode as clients read it ({@code follow} or {@code approval}): the hello answer and REST's social settings. */
    public String modeName() {
        return mode().name().toLowerCase(Locale.ROOT);
    }

    /** Default: friends in approval mode, followers in follow mode. */
    public Audience presenceAudience() {
        return presenceAudience.filter(a -> !a.isBlank())
                .map(a -> Audience.valueOf(a.trim().toUpperCase(Locale.ROOT)))
                .orElse(mode() == Mode.FOLLOW ? Audience.FOLLOWERS : Audience.FRIENDS);
    }

    /** Follow mode: messages a non-friend may send before being followed back (chat enforces it). */
    public int strangerMessageLimit() {
        return strangerMessageLimit;
    }

    public Duration requestTtl() {
        return Durations.parse(requestTtl);
    }
}
