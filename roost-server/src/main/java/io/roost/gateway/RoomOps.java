package io.roost.gateway;

import io.roost.platform.problem.ProblemException;
import io.roost.room.LiveRooms;
import io.roost.room.RoomStats;
import io.roost.room.Viewer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import java.util.List;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code roomOp} frames for connected devices, acting as the logged-in user: viewers
 * {@code enter}, {@code heartbeat}, {@code leave}; anchors {@code open}, {@code anchorHeartbeat},
 * {@code close}; anyone {@code stats}. Answered with {@code roomOpRet} carrying the counts. The
 * rooms a connection entered are remembered, so a closed connection leaves them within a second
 * instead of waiting for the viewer timeout.
 */
@ApplicationScoped
public class RoomOps {

    private static final Logger LOG = Logger.getLogger(RoomOps.class.getName());

    @Inject
    LiveRooms rooms;

    /** Handles one frame; {@code entered} is the connection's set of rooms it is watching. */
    public String handle(long me, JsonObject frame, Set<String> entered) {
        String op = frame.getString("op", "");
        JsonObjectBuilder ret = Frames.reply(frame);
        try {
            String roomId = LiveRooms.roomId(frame.getString("roomId", null));
            ret.add("roomId", roomId);
            switch (op) {
                case "enter" -> {
                    Viewer v = rooms.enter(roomId, List.of(me)).get(0);
                    entered.add(roomId);
                    ret.add("fan", v.fan());
                    stats(ret, rooms.stats(roomId));
                }
                case "heartbeat" -> stats(ret, rooms.heartbeat(roomId, List.of(me)));
                case "leave" -> {
                    rooms.leave(roomId, List.of(me));
                    entered.remove(roomId);
                }
                case "open" -> {
                    String title = frame.getString("title", null);
                    if (title != null && title.length() > 200) {
                        throw ProblemException.badRequest("title-too-long", "A title has at most 200 characters.");
                    }
                    ret.add("sessionId", Long.toString(rooms.open(roomId, me, title).session().id()));
                }
                case "anchorHeartbeat" -> stats(ret, rooms.anchorHeartbeat(roomId, me));
                case "close" -> rooms.close(roomId, me);
                case "stats" -> stats(ret, rooms.stats(roomId));
                default -> throw ProblemException.badRequest("unknown-op", "Unknown roomOp '" + op + "'.");
            }
            return Frames.outcome(ret, null);
        } catch (ProblemException e) {
            return Frames.outcome(ret, e);
        }
    }

    /** The connection closed: it leaves every room it entered (best effort; the timeout sweep is the backstop). */
    public void connectionClosed(long me, Set<String> entered) {
        for (String roomId : entered) {
            try {
                rooms.dropped(roomId, me);
            } catch (RuntimeException e) {
                LOG.log(Level.FINE, "leaving room " + roomId + " on close failed; the viewer timeout will", e);
            }
        }
        entered.clear();
    }

    private static void stats(JsonObjectBuilder ret, RoomStats s) {
        ret.add("sessionId", Long.toString(s.sessionId())).add("online", s.online()).add("onlineFans", s.onlineFans());
    }
}
