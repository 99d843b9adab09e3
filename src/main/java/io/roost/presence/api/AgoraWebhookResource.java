package io.roost.presence.api;

import io.roost.platform.problem.Problem;
import io.roost.presence.rtc.AgoraSignature;
import io.roost.presence.rtc.NcsNotice;
import io.roost.presence.rtc.RtcIngestor;
import io.roost.presence.rtc.RtcSettings;
import jakarta.ejb.EJB;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * Agora NCS channel-event webhook. No caller account: the HMAC signature is the authentication.
 * 200 only after the notice's effect is committed; within NCS's 10 s limit, a 503 otherwise so
 * NCS sends it again.
 */
@Path("/v1/webhooks/agora")
@Tag(name = "presence")
public class AgoraWebhookResource {

    private static final Logger LOG = Logger.getLogger(AgoraWebhookResource.class.getName());
    static final long RESPONSE_DEADLINE_MS = 8_000;

    @EJB
    RtcIngestor ingestor;

    @Inject
    RtcSettings settings;

    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Receive an Agora NCS RTC channel event (signed with Agora-Signature / Agora-Signature-V2)")
    public void receive(byte[] body,
                        @HeaderParam("Agora-Signature") String sha1,
                        @HeaderParam("Agora-Signature-V2") String sha256,
                        @Suspended AsyncResponse response) {
        List<String> secrets = settings.secrets();
        if (secrets.isEmpty() || body == null || !AgoraSignature.verify(body, sha1, sha256, secrets)) {
            response.resume(Problem.of(401, "invalid-signature", "Unauthorized", secrets.isEmpty()
                    ? "No webhook secret is configured (ROOST_AGORA_SECRET); notifications are refused."
                    : "Neither Agora-Signature nor Agora-Signature-V2 verifies for this body.").toResponse());
            return;
        }
        NcsNotice notice = NcsNotice.parse(body);
        // No AsyncResponse.setTimeout: RESTEasy would build thread contexts (a ServiceLoader scan)
        // per request; the future's own deadline resumes the response in time.
        ingestor.submit(notice)
                .orTimeout(RESPONSE_DEADLINE_MS, TimeUnit.MILLISECONDS)
                .whenComplete((ok, failure) -> {
                    if (failure == null) {
                        response.resume(Response.ok(Map.of("noticeId", notice.noticeId())).build());
                    } else {
                        LOG.log(Level.FINE, "notice " + notice.noticeId() + " not applied", failure);
                        response.resume(Problem.of(503, "not-applied", "Service unavailable",
                                "The notice was not committed; send it again.").toResponse());
                    }
                });
    }
}
