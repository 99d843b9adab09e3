package io.roost.identity;

import io.roost.identity.security.PasswordHasher;
import io.roost.identity.store.Account;
import io.roost.platform.config.DeviceTypes;
import io.roost.platform.config.Durations;
import io.roost.platform.problem.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Device logins: with a user name / e-mail / phone and password, or with the
 * token the device saved from an earlier login. Either way the answer is a bearer token bound to
 * (account, deviceType, deviceId), which the device then presents on its WebSocket. Failed
 * password logins are throttled per account and per client address.
 */
@ApplicationScoped
public class LoginService {

    @Inject
    AccountService accounts;

    @Inject
    TokenService tokens;

    @Inject
    PasswordHasher hasher;

    @Inject
    AuthThrottle throttle;

    @Inject
    IdentitySettings settings;

    @Inject
    DeviceTypes deviceTypes;

    @Inject
    @ConfigProperty(name = "roost.login.token-ttl", defaultValue = "30d")
    String tokenTtl;

    public TokenService.IssuedToken withPassword(String login, String password, String deviceType, String deviceId,
                                                 String clientAddress) {
        String type = checkDevice(deviceType, deviceId);
        String addressKey = "login:ip:" + clientAddress;
        throttle.guard(addressKey);
        Optional<Account> account = login.indexOf('@') > 0 || login.startsWith("+")
                ? lookupAddress(login) : accounts.findByUsername(login);
        String accountKey = account.map(a -> "login:account:" + a.getId()).orElse(null);
        if (accountKey != null) {
            throttle.reserve(accountKey, settings.accountLoginPolicy());
        }
        String hash = account.map(Account::getPasswordHash).orElse(null);
        if (!hasher.verify(password, hash)) { // verifies a decoy when there is no account: same timing
            if (accountKey != null) {
                throttle.failed(accountKey, settings.accountLoginPolicy());
            }
            throttle.count(addressKey, settings.addressLoginPolicy());
            throw invalid();
        }
        throttle.clear(accountKey);
        Account a = account.get();
        if (!a.isActive()) {
            throw ProblemException.forbidden("This account is " + a.getStatus().name().toLowerCase()
                    + (a.getStatus() == Account.Status.DISABLED ? "; it can be recovered by an operator"
                    + ("self".equals(a.getDisabledBy()) ? " or with a code sent to its address" : "") : "") + ".");
        }
        return tokens.issue(a.getId(), ttl(), "login " + type, type, deviceId);
    }

    /** The device's saved token, still live, for the same account and device: renewed and handed back. */
    public TokenService.IssuedToken withToken(long uid, String token, String deviceType, String deviceId,
                                              String clientAddress) {
        String type = checkDevice(deviceType, deviceId);
        String addressKey = "login:ip:" + clientAddress;
        throttle.guard(addressKey);
        Optional<TokenService.Grant> grant = tokens.authenticate(token)
                .filter(g -> g.accountId() == uid && g.fits(type, deviceId));
        if (grant.isEmpty()) {
            throttle.count(addressKey, settings.addressLoginPolicy());
            throw invalid();
        }
        var expiresAt = tokens.renew(token, ttl()).orElseThrow(LoginService::invalid);
        return new TokenService.IssuedToken(token, Long.toString(uid), expiresAt, grant.get().deviceType(),
                grant.get().deviceId());
    }

    /** A device token for an account that just proved itself another way (a registration). */
    public TokenService.IssuedToken issueFor(long accountId, String deviceType, String deviceId) {
        String type = checkDevice(deviceType, deviceId);
        return tokens.issue(accountId, ttl(), "registration " + type, type, deviceId);
    }

    private Optional<Account> lookupAddress(String login) {
        return accounts.findByAddress(login.startsWith("+") ? ContactAddress.phone(login) : ContactAddress.email(login));
    }

    /** The normalized device type; 400 if the type is not configured or the device id is missing. */
    public String checkDevice(String deviceType, String deviceId) {
        String type = deviceTypes.normalize(deviceType);
        if (type == null) {
            throw ProblemException.badRequest("unknown-device-type", "deviceType must be one of " + deviceTypes.all() + ".");
        }
        if (deviceId == null || deviceId.isBlank() || deviceId.length() > 128) {
            throw ProblemException.badRequest("invalid-device-id", "deviceId is required (at most 128 characters).");
        }
        return type;
    }

    private Duration ttl() {
        return Durations.parse(tokenTtl);
    }

    private static ProblemException invalid() {
        return new ProblemException(401, "invalid-credentials", "Unauthorized",
                "The login name, password or token is wrong.");
    }
}
