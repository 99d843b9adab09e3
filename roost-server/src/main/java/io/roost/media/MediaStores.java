package io.roost.media;

import io.roost.media.store.ChunkStore;
import io.roost.media.store.MediaStore;
import io.roost.media.store.PostgresMediaStore;
import io.roost.media.store.S3MediaStore;
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
    private volatile MediaStore s3;

    /** The store new files go to ({@code ROOST_MEDIA_STORE}). */
    public MediaStore current() {
        return byName(settings.store());
    }

    /** The store a file's row names ({@code db} or {@code s3}), made at its first use. */
    public MediaStore byName(String name) {
        switch (name) {
            case "db" -> {
                MediaStore s = db;
                if (s == null) {
                    db = s = new PostgresMediaStore(chunks);
                }
                return s;
            }
            case "s3" -> {
                MediaStore s = s3;
                if (s == null) {
                    synchronized (this) {
                        if (s3 == null) {
                            s3 = new S3MediaStore(settings.s3());
                        }
                        s = s3;
                    }
                }
                return s;
            }
            default -> throw new IllegalStateException("unknown media store '" + name + "' (db or s3)");
        }
    }
}
