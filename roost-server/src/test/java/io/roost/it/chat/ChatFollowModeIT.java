package io.roost.it.chat;

import static io.roost.it.Http.ADMIN;
import static io.roost.it.Http.json;
import static io.roost.it.Problems.assertProblem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.roost.client.device.Conversation;
import io.roost.client.device.Outgoing;
import io.roost.client.device.RoostDevice;
import io.roost.client.device.RoostFrameException;
import io.roost.it.AtOnce;
import io.roost.it.DeployedRoost;
import io.roost.it.Devices;
import io.roost.it.Devices.Recorder;
import io.roost.it.Social;
import io.roost.it.TestUsers;
import io.roost.it.TestUsers.User;
import jakarta.json.JsonObject;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Chat in follow mode (its own Failsafe execution, ROOST_SOCIAL_MODE=follow): someone the recipient
 * does not follow may send ROOST_SOCIAL_STRANGER_MESSAGE_LIMIT (3) messages until followed. That
 * deployment's content filter refuses blocked words (ROOST_CHAT_BLOCKED_WORDS_ACTION=reject),
 * where the suite's masks them.
 */
class ChatFollowModeIT extends DeployedRoost {

    /** Only in the follow-mode execution: a -Dit.test=... run of another execution fails here instead of testing approval mode. */
    @BeforeAll
    static void inFollowMode() {
        Social.assertFollowModeExecution();
    }

    User user() throws Exception {
        return TestUsers.registerWithoutPassword(baseUrl, "cf-", "web", "w");
    }

    HttpResponse<String> send(String auth, String fields) {
        return http().post("api/v1/chat/messages", auth, "{\"sendId\":\"s-" + UUID.randomUUID() + "\"," + fields + "}");
    }

    HttpResponse<String> text(User from, User to) {
        return text(from, to, "s-" + UUID.randomUUID());
    }

    HttpResponse<String> text(User from, User to, String sendId) {
        return http().post("api/v1/chat/messages", from.auth(), "{\"sendId\":\"" + sendId + "\",\"peer\":\"" + to.id()
                + "\",\"type\":\"text\",\"text\":\"hi\"}");
    }

    long lastSeq(User owner, User peer) {
        return json(http().get("api/v1/chat/users/me/conversations?limit=100", owner.auth())).getJsonArray("items").stream()
                .map(JsonObject.class::cast).filter(c -> c.getString("peer").equals(peer.id())).findFirst()
                .map(c -> c.getJsonNumber("lastSeq").longValue()).orElse(0L);
    }

    @Test
    void aStrangerSendsThreeUntilFollowedAndSystemMessagesAreExempt() throws Exception {
        User fan = user();
        User star = user();
        // following the star does not help: it is whether the star follows the fan
        assertEquals(201, http().put("api/v1/social/following/" + star.id(), fan.auth(), "").statusCode());
        for (int i = 0; i < 3; i++) {
            assertEquals(201, text(fan, star).statusCode());
        }
        assertProblem(text(fan, star), 403, "stranger-limit");
        assertEquals(3, lastSeq(star, fan), "the refused one wrote nothing and spent no seq");

        // the star answers (the fan follows the star, so the star is no stranger to the fan)
        assertEquals(201, text(star, fan).statusCode());
        assertProblem(text(fan, star), 403, "stranger-limit");

        // a system message is exempt; a back end on the fan's behalf is not
        assertEquals(201, send(ADMIN, "\"from\":\"" + fan.id() + "\",\"peer\":\"" + star.id()
                + "\",\"type\":\"system\",\"text\":\"You matched\"").statusCode());
        assertProblem(send(ADMIN, "\"from\":\"" + fan.id() + "\",\"peer\":\"" + star.id() + "\",\"type\":\"text\",\"text\":\"x\""),
                403, "stranger-limit");

        // over the socket too
        try (RoostDevice device = Devices.online(baseUrl, fan, "web", "w", new Recorder())) {
            Outgoing please = Outgoing.text(Conversation.user(star.id()), "please").withSendId("ws-1");
            ExecutionException refused = assertThrows(ExecutionException.class, () -> device.send(please).get(30, TimeUnit.SECONDS));
            assertEquals("stranger-limit", ((RoostFrameException) refused.getCause()).code());

            // once the star follows the fan, the fan is no stranger
            assertEquals(201, http().put("api/v1/social/following/" + fan.id(), star.auth(), "").statusCode());
            assertFalse(device.send(please).get(30, TimeUnit.SECONDS).resent(), "the refused send stored nothing");
        }
        assertEquals(6, lastSeq(star, fan));
    }

    /**
     * A stranger's sends racing each other (they meet in one send batch, or queue on the
     * conversation's rows across batches) take exactly the limit's places: the batch that goes past
     * it is written again one message at a time, and only those past the limit are refused.
     */
    @Test
    void tenRacingSendsOfAStrangerStoreExactlyTheLimit() throws Exception {
        User stranger = user();
        User star = user();
        Callable<HttpResponse<String>> send = () -> text(stranger, star);
        Map<Integer, Long> byStatus = new TreeMap<>();
        for (HttpResponse<String> response : AtOnce.run(Collections.nCopies(10, send))) {
            if (response.statusCode() == 403) {
                assertProblem(response, 403, "stranger-limit");
            }
            byStatus.merge(response.statusCode(), 1L, Long::sum);
        }
        assertEquals(Map.of(201, 3L, 403, 7L), byStatus);
        assertEquals(3, lastSeq(star, stranger), "the refused ones wrote nothing and spent no seq");
        assertEquals(3, lastSeq(stranger, star));
    }

    /**
     * Once a stranger's limit is used up, their new sends are refused before their send batch is
     * written, while a resend of one of their stored messages keeps its answer and another
     * sender's messages racing with them into the same batches are stored.
     */
    @Test
    void aUsedUpLimitRefusesNewSendsButNotAResendNorOtherSendersInTheSameBatch() throws Exception {
        User stranger = user();
        User star = user();
        User followed = user();
        assertEquals(201, http().put("api/v1/social/following/" + followed.id(), star.auth(), "").statusCode());
        String first = "s-" + UUID.randomUUID();
        JsonObject stored = json(text(stranger, star, first));
        for (int i = 0; i < 2; i++) {
            assertEquals(201, text(stranger, star).statusCode());
        }
        List<Callable<HttpResponse<String>>> sends = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            sends.add(() -> text(stranger, star));
            sends.add(() -> text(followed, star));
        }
        sends.add(() -> text(stranger, star, first));
        List<HttpResponse<String>> answers = AtOnce.run(sends);
        for (int i = 0; i < 12; i++) {
            if (i % 2 == 0) {
                assertProblem(answers.get(i), 403, "stranger-limit");
            } else {
                assertEquals(201, answers.get(i).statusCode(), answers.get(i).body());
            }
        }
        HttpResponse<String> resend = answers.get(12);
        assertEquals(200, resend.statusCode(), resend.body());
        JsonObject again = json(resend);
        assertEquals(stored.getString("msgId"), again.getString("msgId"));
        assertEquals(1, again.getInt("seq"));
        assertEquals(3, lastSeq(star, stranger), "the refused ones wrote nothing and spent no seq");
        assertEquals(6, lastSeq(star, followed));
    }

    @Test
    void theRejectingContentFilterRefusesEveryTextAUserWroteAndWritesNothing() throws Exception {
        User a = user();
        User b = user();
        assertEquals(201, http().put("api/v1/social/following/" + a.id(), b.auth(), "").statusCode());
        for (String fields : List.of("\"type\":\"text\",\"text\":\"a roostbadword\"",
                "\"type\":\"custom\",\"text\":\"ROOSTAWFULWORD\"",
                "\"type\":\"file\",\"media\":{\"url\":\"https://cdn.example/f\",\"size\":1,\"mime\":\"text/plain\",\"name\":\"roostbadword\"}",
                "\"type\":\"location\",\"location\":{\"lat\":1,\"lon\":2,\"title\":\"roostawfulword\"}")) {
            assertProblem(send(a.auth(), "\"peer\":\"" + b.id() + "\"," + fields), 422, "content-rejected");
        }
        assertEquals(0, lastSeq(b, a), "nothing was written, no seq spent");
        assertEquals(201, text(a, b).statusCode());
        assertEquals(1, lastSeq(b, a));
        // a system message is a back end's own words
        assertEquals(201, send(ADMIN, "\"from\":\"" + a.id() + "\",\"peer\":\"" + b.id()
                + "\",\"type\":\"system\",\"text\":\"roostbadword is a test word\"").statusCode());
    }

    @Test
    void eachConversationHasItsOwnLimit() throws Exception {
        User stranger = user();
        User one = user();
        User two = user();
        for (int i = 0; i < 3; i++) {
            assertEquals(201, text(stranger, one).statusCode());
        }
        assertProblem(text(stranger, one), 403, "stranger-limit");
        assertEquals(201, text(stranger, two).statusCode(), "another recipient: another count");
    }
}
