package io.roost.media;

import io.roost.media.store.ChunkStore;
import io.roost.media.store.MediaStore;
import io.roost.media.store.PostgresMediaStore;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** The stores by name: the configured one for new files, and whichever a stored file's row names. */
@ApplicationScoped
public class MediaStores {

    @EJB
    ChunkStore chunks;

    @Inject
    MediaSettings settings;

    private volatile MediaStore db;

    /** The store new files go to ({@code ROOST_MEDIA_STORE}). */
    public MediaStore current() {
        return byName(settings.store());
    }

    public MediaStore byName(String name) {
        if (!"db".equals(name)) {
            throw new IllegalStateException("unknown media store '" + name + "' (db)");
        }
        MediaStore s = db;
        if (s == null) {
            db = s = new PostgresMediaStore(chunks);
        }
        return s;
    }
}
