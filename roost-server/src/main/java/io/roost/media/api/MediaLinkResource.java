package io.roost.media.api;

import io.roost.media.MediaLibrary;
import io.roost.platform.ids.Ids;
import io.roost.platform.problem.ProblemException;
import jakarta.annotation.security.PermitAll;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * Signed download links: public (the signature is the credential), refused once expired, forged, or
 * when the message they go through was recalled or deleted.
 */
@Path("/v1/media-links")
@PermitAll
@Tag(name = "media")
public class MediaLinkResource {

    @Inject
    MediaLibrary library;

    @GET
    @Path("/{media}")
    @Produces(MediaType.WILDCARD)
    @Operation(operationId = "downloadMediaByLink", summary = "A file's bytes through a signed link (POST /api/v1/media/{media}/links makes one)")
    @APIResponse(responseCode = "200", description = "the bytes", content = @Content(mediaType = "application/octet-stream", schema = @Schema(type = SchemaType.STRING, format = "binary")))
    @APIResponse(responseCode = "206", description = "the range asked", content = @Content(mediaType = "application/octet-stream", schema = @Schema(type = SchemaType.STRING, format = "binary")))
    public Response content(@PathParam("media") String media, @QueryParam("msg") String msg, @QueryParam("exp") String exp,
                            @QueryParam("sig") String sig, @QueryParam("thumbnail") boolean thumbnail, @HeaderParam("Range") String range,
                            @HeaderParam("If-None-Match") String ifNoneMatch) throws IOException {
        if (msg == null || exp == null || sig == null) {
            throw new ProblemException(403, "invalid-link", "Forbidden", "A link has msg, exp and sig.");
        }
        long expires;
        try {
            expires = Long.parseLong(exp);
        } catch (NumberFormatException e) {
            throw new ProblemException(403, "invalid-link", "Forbidden", "The link is expired or not signed by this server.");
        }
        return Downloads.answer(() -> library.linked(Ids.parse(media), Ids.parse(msg), expires, sig, thumbnail,
                new MediaLibrary.ByteRangeAsk(range)), ifNoneMatch);
    }
}
