package io.roost.presence.api;

import io.roost.platform.problem.ProblemException;
import io.roost.presence.rtc.AgoraSignature;
import io.roost.presence.rtc.NcsNotice;
import io.roost.presence.rtc.RtcIngestor;
import io.roost.presence.rtc.RtcSettings;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.servlet.ServletContext;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * What the Agora NCS webhook does with one request: check the signature (the HMAC is the
 * authentication: no caller account), parse, and hand the notice to the group commit. Served by
 * {@link AgoraWebhookHandler} on Undertow's I/O thread, outside the servlet and JAX-RS chains.
 */
@ApplicationScoped
public class AgoraWebhook {

    /** The servlet-context attribute under which the handler finds this bean. */
    static final String ATTRIBUTE = AgoraWebhook.class.getName();
    /** NCS gives up after 10 s: answer 503 before that, so it sends the notice again. */
    static final long RESPONSE_DEADLINE_MS = 8_000;

    @EJB
    RtcIngestor ingestor;

    @Inject
    RtcSettings settings;

    @Inject
    @ConfigProperty(name = "roost.max-request-bytes", defaultValue = "1048576")
    long maxBytes;

    void publish(@Observes @Initialized(ApplicationScoped.class) ServletContext context) {
        context.setAttribute(ATTRIBUTE, this);
    }

    long maxBytes() {
        return maxBytes;
    }

    /**
     * Completes when the notice's effect is committed (or it is a known duplicate or an unknown
     * type); fails if it could not be committed within the deadline.
     *
     * @throws ProblemException 401 for a missing or wrong signature, 400 for a malformed notice
     */
    CompletableFuture<NcsNotice> receive(byte[] body, String sha1, String sha256) {
        List<String> secrets = settings.secrets();
        if (secrets.isEmpty() || !AgoraSignature.verify(body, sha1, sha256, secrets)) {
            throw new ProblemException(401, "invalid-signature", "Unauthorized", secrets.isEmpty()
                    ? "No webhook secret is configured (ROOST_AGORA_SECRET); notifications are refused."
                    : "Neither Agora-Signature nor Agora-Signature-V2 verifies for this body.");
        }
        NcsNotice notice = NcsNotice.parse(body);
        return ingestor.submit(notice).orTimeout(RESPONSE_DEADLINE_MS, TimeUnit.MILLISECONDS).thenApply(done -> notice);
    }
}
