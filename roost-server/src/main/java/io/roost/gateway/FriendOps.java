package io.roost.gateway;

import io.roost.platform.json.Jsonp;
import io.roost.platform.ids.Ids;
import io.roost.platform.problem.ProblemException;
import io.roost.social.SocialGraph;
import io.roost.social.SocialSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;

/**
 * {@code friendOp} frames for connected devices: the same social service as the
 * REST API — changes, and reads ({@code friends}, {@code followers}, {@code following}, {@code blocked},
 * {@code requests}, {@code counts}) paged as REST pages them — answered with a {@code friendOpRet} frame carrying the client's {@code seq},
 * {@code result} ok/fail and, on failure, the problem type as {@code code}.
 */
@ApplicationScoped
public class FriendOps {

    @Inject
    SocialGraph graph;

    @Inject
    SocialSettings settings;

    public String handle(long me, JsonObject frame) {
        String op = frame.getString("op", "");
        JsonObjectBuilder ret = Frames.reply(frame);
        try {
            switch (op) {
                case "follow" -> {
                    settings.require(SocialSettings.Mode.FOLLOW);
                    graph.follow(me, uid(frame, "uid"));
                }
                case "unfollow" -> {
                    settings.require(SocialSettings.Mode.FOLLOW);
                    graph.unfollow(me, uid(frame, "uid"));
                }
                case "request" -> {
                    settings.require(SocialSettings.Mode.APPROVAL);
                    String message = frame.getString("message", null);
                    if (message != null && message.length() > 500) {
                        throw ProblemException.badRequest("message-too-long", "A request message has at most 500 characters.");
                    }
                    var outcome = graph.requestFriend(me, uid(frame, "uid"), message);
                    ret.add("requestId", Long.toString(outcome.request().id())).add("friends", outcome.friends());
                }
                case "answer" -> {
                    settings.require(SocialSettings.Mode.APPROVAL);
                    var answered = graph.answer(me, uid(frame, "requestId"), frame.getString("decision", ""),
                            frame.getString("note", null));
                    ret.add("requestId", Long.toString(answered.id())).add("status", answered.status());
                }
                case "cancel" -> graph.cancelRequest(me, uid(frame, "requestId"));
                case "remove" -> graph.removeFriend(me, uid(frame, "uid"));
                case "block" -> graph.block(me, uid(frame, "uid"));
                case "unblock" -> graph.unblock(me, uid(frame, "uid"));
                case "permission" -> graph.setPermission(me, uid(frame, "uid"),
                        new SocialGraph.Permission(frame.getBoolean("hidePresence", false), frame.getBoolean("muted", false)));
                case "relation" -> {
                    var r = graph.relation(me, uid(frame, "uid"));
                    ret.add("following", r.following()).add("followedBy", r.followedBy()).add("friends", r.friends())
                            .add("blocking", r.blocking()).add("blockedBy", r.blockedBy());
                }
                // reads: the same pages as the REST API (items, next), for the calling user
                case "friends" -> Frames.page(ret, SocialGraph.page(
                        n -> graph.friends(me, Frames.optionalId(frame, "with"), Frames.optionalId(frame, "after"), n), limit(frame)));
                case "followers" -> Frames.page(ret, SocialGraph.page(
                        n -> graph.followers(me, Frames.optionalId(frame, "after"), n), limit(frame)));
                case "following" -> Frames.page(ret, SocialGraph.page(
                        n -> graph.following(me, Frames.optionalId(frame, "after"), n), limit(frame)));
                case "blocked" -> Frames.page(ret, SocialGraph.page(
                        n -> graph.blocked(me, Frames.optionalId(frame, "after"), n), limit(frame)));
                case "requests" -> Frames.page(ret, graph.requestPage(me, frame.getString("direction", "incoming"),
                        frame.getString("status", "PENDING"), Frames.optionalId(frame, "before"), limit(frame)));
                case "counts" -> {
                    var c = graph.counts(me);
                    ret.add("followers", c.followers()).add("following", c.following());
                }
                default -> throw ProblemException.badRequest("unknown-op", "Unknown friendOp '" + op + "'.");
            }
            return Frames.outcome(ret, null);
        } catch (ProblemException e) {
            return Frames.outcome(ret, e);
        }
    }

    private static int limit(JsonObject frame) {
        return Frames.limit(frame, 100, SocialGraph.MAX_LIMIT);
    }

    /** A string id field of the frame; 400 {@code invalid-id} if it is not one. */
    private static long uid(JsonObject frame, String field) {
        return Ids.parse(frame.getString(field, ""));
    }
}
