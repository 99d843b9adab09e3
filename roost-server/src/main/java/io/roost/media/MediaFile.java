package io.roost.media;

import java.time.OffsetDateTime;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** A stored file as REST answers and messages show it (ids as strings: JS-safe). */
@Schema(name = "MediaFile", description = "A stored file: what its bytes are, found by the server")
public record MediaFile(@Schema(required = true) String id, @Schema(required = true, description = "the uploader") String owner,
                        @Schema(required = true, enumeration = {"image", "voice", "video", "file"}) String kind,
                        @Schema(required = true, description = "found from the bytes") String mime,
                        @Schema(required = true) long size, @Schema(required = true, description = "hex SHA-256 of the bytes served") String sha256,
                        String name, Integer width, Integer height, @Schema(description = "milliseconds") Long duration,
                        @Schema(required = true) boolean thumbnail, @Schema(required = true) OffsetDateTime createdAt,
                        @Schema(required = true) boolean removed) {

    /** The path its bytes are downloaded from. */
    public String url() {
        return "/api/v1/media/" + id + "/content";
    }
}
