package io.roost.it;

import io.roost.presence.rtc.AgoraSignature;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Plays Agora's notification service: builds NCS JSON and POSTs it signed, like NCS does. */
public final class Ncs {

    public static final String SECRET = "it-secret-new";
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

    private final URI webhook;

    public Ncs(URI base) {
        this.webhook = base.resolve("api/v1/webhooks/agora");
    }

    public static String member(String noticeId, int type, String channel, long uid, long clientSeq, long ts, Integer reason) {
        return "{\"noticeId\":\"" + noticeId + "\",\"productId\":1,\"eventType\":" + type + ",\"notifyMs\":"
                + System.currentTimeMillis() + ",\"sid\":\"s\",\"payload\":{\"channelName\":\"" + channel + "\",\"uid\":"
                + uid + ",\"clientSeq\":" + clientSeq + ",\"ts\":" + ts + ",\"platform\":1,\"clientType\":3"
                + (reason == null ? "" : ",\"reason\":" + reason) + "}}";
    }

    public static String channel(String noticeId, int type, String channel, long ts) {
        return "{\"noticeId\":\"" + noticeId + "\",\"productId\":1,\"eventType\":" + type
                + ",\"payload\":{\"channelName\":\"" + channel + "\",\"ts\":" + ts + "}}";
    }

    public HttpResponse<String> send(String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        return send(body, AgoraSignature.hmacHex("HmacSHA1", SECRET, body), AgoraSignature.hmacHex("HmacSHA256", SECRET, body));
    }

    public HttpResponse<String> send(byte[] body, String sha1, String sha256) {
        HttpRequest.Builder b = HttpRequest.newBuilder(webhook).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (sha1 != null) {
            b.header("Agora-Signature", sha1);
        }
        if (sha256 != null) {
            b.header("Agora-Signature-V2", sha256);
        }
        try {
            return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new AssertionError("webhook request failed: " + e, e);
        }
    }
}
