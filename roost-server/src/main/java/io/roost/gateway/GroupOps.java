package io.roost.gateway;

import io.roost.group.GroupService;
import io.roost.group.GroupView;
import io.roost.platform.ids.Ids;
import io.roost.platform.problem.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import java.util.List;

/**
 * {@code groupOp} frames for connected devices: the same group service as the REST
 * API, answered with {@code groupOpRet} ({@code seq}, {@code result} ok/fail, the problem type as
 * {@code code} on failure).
 */
@ApplicationScoped
public class GroupOps {

    @Inject
    GroupService groups;

    public String handle(long me, JsonObject frame) {
        String op = frame.getString("op", "");
        JsonObjectBuilder ret = Frames.reply(frame);
        try {
            switch (op) {
                case "create" -> {
                    String type = frame.getString("groupType", "chat");
                    String name = frame.getString("name", "").trim();
                    if (name.isEmpty() || name.length() > 100 || !type.matches("chat|channel")) {
                        throw ProblemException.badRequest("invalid-group", "name is 1-100 characters; groupType is chat or channel.");
                    }
                    String policy = frame.getString("joinPolicy", "open");
                    String visibility = frame.getString("visibility", "public");
                    if (!policy.matches("open|approval|invite-only") || !visibility.matches("public|hidden")) {
                        throw ProblemException.badRequest("invalid-group", "joinPolicy is open, approval or invite-only; visibility public or hidden.");
                    }
                    ret.add("groupId", Long.toString(groups.create(me, name, type, policy, visibility,
                            frame.getString("notice", null), null, List.of()).id()));
                }
                case "dissolve" -> groups.dissolve(me, id(frame, "groupId"));
                case "join" -> {
                    var outcome = groups.requestJoin(me, id(frame, "groupId"), frame.getString("message", null));
                    ret.add("member", outcome.member());
                    if (outcome.request() != null) {
                        ret.add("requestId", Long.toString(outcome.request().id()));
                    }
                }
                case "answer" -> {
                    long rid = id(frame, "requestId");
                    boolean accept = "accept".equals(frame.getString("decision", ""));
                    var r = groups.findRequest(rid).orElseThrow(() -> ProblemException.notFound("No request " + rid));
                    ret.add("status", (r.kind().equals("invite") ? groups.answerInvite(me, rid, accept)
                            : groups.answerJoin(me, rid, accept, frame.getString("note", null))).status());
                }
                case "invite" -> ret.add("requestId", Long.toString(
                        groups.invite(me, id(frame, "groupId"), id(frame, "uid"), frame.getString("message", null)).id()));
                case "kick" -> groups.kick(me, id(frame, "groupId"), id(frame, "uid"));
                case "mute" -> groups.mute(me, id(frame, "groupId"), id(frame, "uid"), until(frame), true);
                case "unmute" -> groups.mute(me, id(frame, "groupId"), id(frame, "uid"), null, false);
                case "quit" -> groups.quit(me, id(frame, "groupId"));
                case "addAdmin" -> groups.setAdmin(me, id(frame, "groupId"), id(frame, "uid"), true);
                case "removeAdmin" -> groups.setAdmin(me, id(frame, "groupId"), id(frame, "uid"), false);
                case "transferOwner" -> groups.transferOwner(me, id(frame, "groupId"), id(frame, "uid"));
                case "setInfo" -> groups.setInfo(me, id(frame, "groupId"), new GroupService.InfoChange(
                        frame.getString("name", null), frame.getString("notice", null), frame.getString("iconUrl", null),
                        frame.containsKey("tags") ? frame.getJsonArray("tags").getValuesAs(JsonString.class).stream()
                                .map(JsonString::getString).toList() : null,
                        frame.getString("joinPolicy", null), frame.getString("visibility", null)));
                // reads: the same views and pages as the REST API
                case "info" -> ret.add("group", Frames.toJson(GroupView.of(groups.visible(me, id(frame, "groupId")))));
                case "members" -> Frames.page(ret, groups.members(me, false, id(frame, "groupId"),
                        Frames.optionalId(frame, "after"), limit(frame)));
                case "mine" -> Frames.page(ret, groups.groupsOf(me, frame.getString("after", null), limit(frame)));
                case "search" -> Frames.page(ret, groups.search(frame.getString("q", null), frame.getString("tag", null),
                        frame.getString("after", null), limit(frame)));
                case "requests" -> {
                    int n = limit(frame);
                    Frames.page(ret, groups.pendingJoins(me, id(frame, "groupId"), frame.getString("before", null), n));
                }
                case "setMyInfo" -> groups.setMyInfo(me, id(frame, "groupId"), frame.getString("nick", null),
                        frame.getString("avatarUrl", null));
                default -> throw ProblemException.badRequest("unknown-op", "Unknown groupOp '" + op + "'.");
            }
            return Frames.outcome(ret, null);
        } catch (ProblemException e) {
            return Frames.outcome(ret, e);
        } catch (ClassCastException e) {
            return Frames.outcome(ret, ProblemException.badRequest("invalid-frame", "A field has the wrong JSON type."));
        }
    }

    /** A string id field of the frame; 400 {@code invalid-id} if it is not one. */
    private static int limit(JsonObject frame) {
        return Frames.limit(frame, 50, GroupService.MAX_LIMIT);
    }

    /** A mute's end: {@code until}, an ISO-8601 time with offset, or absent (for good); 400 {@code invalid-until} otherwise. */
    private static java.time.OffsetDateTime until(JsonObject frame) {
        String until = frame.getString("until", null);
        try {
            return until == null ? null : java.time.OffsetDateTime.parse(until);
        } catch (java.time.format.DateTimeParseException e) {
            throw ProblemException.badRequest("invalid-until", "until is an ISO-8601 time with its offset, e.g. 2027-01-01T12:00:00Z.");
        }
    }

    private static long id(JsonObject frame, String field) {
        return Ids.parse(frame.getString(field, ""));
    }
}
