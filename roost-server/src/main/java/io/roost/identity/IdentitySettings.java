package io.roost.identity;

import io.roost.platform.config.Durations;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Identity configuration (environment variables in the README). */
@ApplicationScoped
public class IdentitySettings {

    @Inject
    @ConfigProperty(name = "roost.codes.ttl", defaultValue = "10m")
    String codeTtl;

    @Inject
    @ConfigProperty(name = "roost.codes.max-attempts", defaultValue = "5")
    int codeMaxAttempts;

    @Inject
    @ConfigProperty(name = "roost.codes.lock", defaultValue = "15m")
    String codeLock;

    @Inject
    @ConfigProperty(name = "roost.codes.resend-interval", defaultValue = "60s")
    String codeResendInterval;

    @Inject
    @ConfigProperty(name = "roost.login.max-failures-per-account", defaultValue = "10")
    int loginFailuresPerAccount;

    @Inject
    @ConfigProperty(name = "roost.login.max-failures-per-address", defaultValue = "50")
    int loginFailuresPerAddress;

    @Inject
    @ConfigProperty(name = "roost.login.lock", defaultValue = "15m")
    String loginLock;

    @Inject
    @ConfigProperty(name = "roost.smtp.host")
    Optional<String> smtpHost;

    @Inject
    @ConfigProperty(name = "roost.smtp.port", defaultValue = "587")
    int smtpPort;

    @Inject
    @ConfigProperty(name = "roost.smtp.user")
    Optional<String> smtpUser;

    @Inject
    @ConfigProperty(name = "roost.smtp.password")
    Optional<String> smtpPassword;

    @Inject
    @ConfigProperty(name = "roost.smtp.starttls", defaultValue = "true")
    boolean smtpStartTls;

    @Inject
    @ConfigProperty(name = "roost.smtp.from", defaultValue = "Roost <no-reply@localhost>")
    String smtpFrom;

    @Inject
    @ConfigProperty(name = "roost.sms.enabled", defaultValue = "false")
    boolean smsEnabled;

    public Duration codeTtl() {
        return Durations.parse(codeTtl);
    }

    public Duration codeResendInterval() {
        return Durations.parse(codeResendInterval);
    }

    /** Five wrong codes (default) lock the address; the window is the code's lifetime. */
    public AuthThrottle.Policy codePolicy() {
        return new AuthThrottle.Policy(codeMaxAttempts, Durations.parse(codeLock), Durations.parse(codeLock));
    }

    public AuthThrottle.Policy accountLoginPolicy() {
        return new AuthThrottle.Policy(loginFailuresPerAccount, Durations.parse(loginLock), Durations.parse(loginLock));
    }

    public AuthThrottle.Policy addressLoginPolicy() {
        return new AuthThrottle.Policy(loginFailuresPerAddress, Durations.parse(loginLock), Durations.parse(loginLock));
    }

    public Optional<String> smtpHost() {
        return smtpHost.filter(h -> !h.isBlank());
    }

    public int smtpPort() {
        return smtpPort;
    }

    public Optional<String> smtpUser() {
        return smtpUser.filter(u -> !u.isBlank());
    }

    public Optional<String> smtpPassword() {
        return smtpPassword;
    }

    public boolean smtpStartTls() {
        return smtpStartTls;
    }

    public String smtpFrom() {
        return smtpFrom;
    }

    public boolean smsEnabled() {
        return smsEnabled;
    }
}
