package io.roost.it;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The tokens, passwords and message bodies the suite used, which no server log line may hold
 * ({@link LogLeakIT} reads them after the other classes of its execution ran). Helpers record
 * what they send: every {@link TestUsers.User}'s token, the suite's passwords, text the chat
 * helpers send. Values shorter than {@link LogLeaks#MIN_LENGTH} are not checked (a short word is in
 * log lines by chance).
 */
public final class LogSecrets {

    private static final Set<String> RECORDED = ConcurrentHashMap.newKeySet();

    static {
        record(TestUsers.PASSWORD);
        record(Http.ADMIN_PASSWORD);
    }

    private LogSecrets() {
    }

    public static void record(String secret) {
        if (secret != null && secret.length() >= LogLeaks.MIN_LENGTH) {
            RECORDED.add(secret);
        }
    }

    static Set<String> recorded() {
        return Set.copyOf(RECORDED);
    }
}
