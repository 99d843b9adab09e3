package io.roost.chat;

import io.roost.chat.store.MessageMediaStore;
import io.roost.media.MediaFile;
import io.roost.media.MediaLibrary;
import io.roost.media.MediaViewers;
import io.roost.platform.ids.Ids;
import io.roost.platform.json.Jsonp;
import io.roost.platform.problem.ProblemException;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import java.util.Map;

/**
 * Files in messages. A message of type image, voice, video or file names a stored file by id
 * ({@code {"media":{"id"}}}, the sender's own upload or one it may see); what is stored and shown is
 * the server's description of that file (size, type, dimensions, duration, its download path), not
 * the client's. An external URL stays possible where {@code ROOST_MEDIA_EXTERNAL_URLS} allows it,
 * marked {@code external}. Who may download a file is who may see a message that names it
 * ({@link MediaViewers}).
 */
@ApplicationScoped
public class ChatMedia implements MediaViewers {

    /** The kind of file each message type names ({@code file}: any). */
    private static final Map<String, String> KIND_OF_TYPE = Map.of("image", "image", "voice", "voice", "video", "video");

    @Inject
    MediaLibrary library;

    @EJB
    MessageMediaStore store;

    /**
     * The body to store for a message from {@code sender}: a media body with the stored file's
     * description, an external one marked so, any other as it is. 404 {@code unknown-media} for a
     * file the sender may not see; 400 {@code media-type-mismatch} for a file of another kind than
     * the message's type; 400 {@code external-media-not-allowed} when external URLs are off.
     */
    public JsonObject resolve(long sender, String type, JsonObject body) {
        if (body == null || !(body.get("media") instanceof JsonObject media)) {
            return body;
        }
        if (!media.containsKey("id")) {
            if (!library.externalUrls()) {
                throw ProblemException.badRequest("external-media-not-allowed", "Messages name stored files by id here; upload the file first.");
            }
            return Jsonp.PROVIDER.createObjectBuilder().add("media", Jsonp.PROVIDER.createObjectBuilder(media).add("external", true)).build();
        }
        MediaFile f = library.forMessage(sender, Ids.parse(((JsonString) media.get("id")).getString()));
        String kind = KIND_OF_TYPE.get(type);
        if (kind != null && !kind.equals(f.kind())) {
            throw ProblemException.badRequest("media-type-mismatch", "A " + type + " message names a " + kind + " file; this one is a "
                    + f.kind() + " (" + f.mime() + ").");
        }
        JsonObjectBuilder m = Jsonp.PROVIDER.createObjectBuilder().add("id", f.id()).add("url", f.url()).add("size", f.size())
                .add("mime", f.mime());
        if (f.width() != null) {
            m.add("width", f.width()).add("height", f.height());
        }
        if (f.duration() != null) {
            m.add("duration", f.duration());
        }
        String name = media.getString("name", f.name());
        if (name != null) {
            m.add("name", name);
        }
        if (f.thumbnail()) {
            m.add("thumbnail", "/api/v1/media/" + f.id() + "/thumbnail");
        }
        return Jsonp.PROVIDER.createObjectBuilder().add("media", m).build();
    }

    /** The stored file a stored body names, or null (none, or an external URL). */
    public static Long mediaIdOf(JsonObject body) {
        if (body != null && body.get("media") instanceof JsonObject media && media.get("id") instanceof JsonString id) {
            return Long.parseLong(id.getString());
        }
        return null;
    }

    @Override
    public boolean maySee(long uid, long mediaId) {
        return store.maySee(uid, mediaId);
    }

    @Override
    public boolean namedBy(long mediaId, long msgId) {
        return store.namedBy(mediaId, msgId);
    }

    @Override
    public java.util.Set<Long> named(java.util.Collection<Long> mediaIds) {
        return store.named(mediaIds);
    }

    /** A removed file: the messages that name it say so (in the removing transaction). */
    void removed(@jakarta.enterprise.event.Observes io.roost.media.MediaRemoved e) {
        store.markRemoved(e.mediaId());
    }
}
