package io.roost.media;

import java.time.OffsetDateTime;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** An upload in progress: continue it from {@code offset}. */
@Schema(name = "MediaUpload")
public record UploadStatus(@Schema(required = true) String id, @Schema(required = true) long size,
                           @Schema(required = true, description = "bytes committed: continue from here") long offset,
                           String name, @Schema(required = true) OffsetDateTime createdAt) {
}
