package io.roost.media.api;

import io.roost.media.MediaFile;
import io.roost.media.MediaLibrary;
import io.roost.media.MediaSettings;
import io.roost.media.MediaUploads;
import io.roost.media.Sha256;
import io.roost.media.UploadStatus;
import io.roost.platform.ids.Ids;
import io.roost.platform.problem.ProblemException;
import io.roost.platform.security.Caller;
import io.roost.platform.security.Roles;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * Files over REST: an upload in one streamed body, or resumable (start, append from the committed
 * offset, ask where it stands); a file's description, bytes (ranges, ETag) and thumbnail for whoever
 * may see it; signed links for a push gateway or a CDN.
 */
@Path("/v1/media")
@RolesAllowed({Roles.ADMIN, Roles.SERVICE, Roles.USER})
@Tag(name = "media")
public class MediaResource {

    @Schema(name = "MediaUploadStart")
    public record StartBody(@NotNull @Schema(required = true, description = "the file's bytes") Long size,
                            @Schema(description = "hex SHA-256 of the file; checked when the last byte is in") @Size(max = 64) String sha256,
                            @Schema(description = "the file's name, shown to whoever receives it") @Size(max = 255) String name) {
    }

    @Schema(name = "MediaLinkRequest")
    public record LinkBody(@NotNull @Schema(required = true, description = "the message through which the link reaches the file")
                           @Size(max = 20) String msgId) {
    }

    @Inject
    MediaUploads uploads;

    @Inject
    MediaLibrary library;

    @Inject
    MediaSettings settings;

    @POST
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(operationId = "uploadMedia", summary = "Upload a file in one streamed body (Content-Length required); answered once it is stored")
    @APIResponse(responseCode = "201", description = "stored (or the same content the caller stored before)",
            content = @Content(schema = @Schema(implementation = MediaFile.class)))
    @RequestBody(required = true, description = "the file's bytes", content = @Content(mediaType = "application/octet-stream", schema = @Schema(type = SchemaType.STRING, format = "binary")))
    public Response upload(@HeaderParam("Content-Length") Long length, @QueryParam("name") String name,
                           @QueryParam("sha256") String sha256, @QueryParam("owner") String owner, InputStream body,
                           @Context SecurityContext sc) throws IOException {
        if (length == null) {
            throw new ProblemException(411, "length-required", "Length required", "An upload declares its Content-Length.");
        }
        long uid = owner(owner, sc);
        UploadStatus started = uploads.start(uid, length, Sha256.parse(sha256), name, settings.maxBytes());
        long id = Long.parseLong(started.id());
        MediaUploads.Appended done;
        try {
            done = uploads.append(uid, id, 0, body);
        } catch (IOException | RuntimeException e) {
            uploads.discard(uid, id); // a one-shot upload is whole or nothing
            throw e;
        }
        if (done.file() == null) {
            uploads.discard(uid, id);
            throw ProblemException.badRequest("upload-incomplete", "The body ended after " + done.upload().offset() + " of "
                    + length + " bytes; nothing was stored.");
        }
        return created(done.file());
    }

    @POST
    @Path("/uploads")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(operationId = "startMediaUpload", summary = "Start a resumable upload; append its bytes with PUT from the offset it holds")
    @APIResponse(responseCode = "201", description = "started", content = @Content(schema = @Schema(implementation = UploadStatus.class)))
    public Response start(@NotNull StartBody b, @QueryParam("owner") String owner, @Context SecurityContext sc) {
        UploadStatus s = uploads.start(owner(owner, sc), b.size(), Sha256.parse(b.sha256()), b.name(), settings.maxBytes());
        return Response.created(URI.create("/api/v1/media/uploads/" + s.id())).header("Upload-Offset", s.offset()).entity(s).build();
    }

    @GET
    @Path("/uploads/{upload}")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(operationId = "getMediaUpload", summary = "Where an upload stands: continue from its offset")
    @APIResponse(responseCode = "200", description = "the upload (its offset also in Upload-Offset)",
            content = @Content(schema = @Schema(implementation = UploadStatus.class)))
    public Response status(@PathParam("upload") String upload, @QueryParam("owner") String owner, @Context SecurityContext sc) {
        UploadStatus s = uploads.status(owner(owner, sc), Ids.parse(upload));
        return Response.ok(s).header("Upload-Offset", s.offset()).build();
    }

    @PUT
    @Path("/uploads/{upload}")
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(operationId = "appendMediaUpload", summary = "Append bytes from Upload-Offset (the offset the upload holds); the last byte makes it a file")
    @APIResponse(responseCode = "200", description = "appended; the upload continues",
            content = @Content(schema = @Schema(implementation = UploadStatus.class)))
    @APIResponse(responseCode = "201", description = "the last byte is in: the stored file",
            content = @Content(schema = @Schema(implementation = MediaFile.class)))
    @RequestBody(required = true, description = "bytes from Upload-Offset", content = @Content(mediaType = "application/octet-stream", schema = @Schema(type = SchemaType.STRING, format = "binary")))
    public Response append(@PathParam("upload") String upload, @HeaderParam("Upload-Offset") String offset,
                           @QueryParam("owner") String owner, InputStream body, @Context SecurityContext sc) throws IOException {
        long at = offset(offset);
        MediaUploads.Appended done = uploads.append(owner(owner, sc), Ids.parse(upload), at, body);
        if (done.file() != null) {
            return created(done.file());
        }
        return Response.ok(done.upload()).header("Upload-Offset", done.upload().offset()).build();
    }

    @DELETE
    @Path("/uploads/{upload}")
    @Operation(operationId = "cancelMediaUpload", summary = "Give an upload up: its bytes are deleted")
    @APIResponse(responseCode = "204", description = "gone")
    public Response cancel(@PathParam("upload") String upload, @QueryParam("owner") String owner, @Context SecurityContext sc) {
        uploads.cancel(owner(owner, sc), Ids.parse(upload));
        return Response.noContent().build();
    }

    @GET
    @Path("/{media}")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(operationId = "getMedia", summary = "A file's description, for whoever may see it (404 for everyone else)")
    public MediaFile file(@PathParam("media") String media, @Context SecurityContext sc) {
        return library.file(Caller.id(sc), sc.isUserInRole(Roles.ADMIN), Ids.parse(media));
    }

    @GET
    @Path("/{media}/content")
    @Produces(MediaType.WILDCARD)
    @Operation(operationId = "downloadMedia", summary = "A file's bytes: ranges (206), ETag and If-None-Match (304), for whoever may see it")
    @APIResponse(responseCode = "200", description = "the bytes", content = @Content(mediaType = "application/octet-stream", schema = @Schema(type = SchemaType.STRING, format = "binary")))
    @APIResponse(responseCode = "206", description = "the range asked", content = @Content(mediaType = "application/octet-stream", schema = @Schema(type = SchemaType.STRING, format = "binary")))
    @APIResponse(responseCode = "304", description = "the caller's copy is current")
    public Response content(@PathParam("media") String media, @HeaderParam("Range") String range,
                            @HeaderParam("If-None-Match") String ifNoneMatch, @Context SecurityContext sc) throws IOException {
        return Downloads.answer(() -> library.download(Caller.id(sc), sc.isUserInRole(Roles.ADMIN), Ids.parse(media), false,
                new MediaLibrary.ByteRangeAsk(range)), ifNoneMatch);
    }

    @GET
    @Path("/{media}/thumbnail")
    @Produces("image/jpeg")
    @Operation(operationId = "downloadMediaThumbnail", summary = "An image's JPEG thumbnail")
    @APIResponse(responseCode = "200", description = "the thumbnail",
            content = @Content(mediaType = "image/jpeg", schema = @Schema(type = SchemaType.STRING, format = "binary")))
    public Response thumbnail(@PathParam("media") String media, @HeaderParam("Range") String range,
                              @HeaderParam("If-None-Match") String ifNoneMatch, @Context SecurityContext sc) throws IOException {
        return Downloads.answer(() -> library.download(Caller.id(sc), sc.isUserInRole(Roles.ADMIN), Ids.parse(media), true,
                new MediaLibrary.ByteRangeAsk(range)), ifNoneMatch);
    }

    @POST
    @Path("/{media}/links")
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(operationId = "createMediaLink", summary = "A short-lived signed download link through a message that names the file (for a push gateway or a CDN)")
    @APIResponse(responseCode = "201", description = "the link (a path under /api/v1/media-links) and its expiry",
            content = @Content(schema = @Schema(implementation = MediaLibrary.Link.class)))
    public Response link(@PathParam("media") String media, @NotNull LinkBody b, @Context SecurityContext sc) {
        MediaLibrary.Link link = library.link(Caller.id(sc), sc.isUserInRole(Roles.ADMIN), Ids.parse(media), Ids.parse(b.msgId()));
        return Response.status(201).entity(link).build();
    }

    private Response created(MediaFile f) {
        return Response.created(URI.create("/api/v1/media/" + f.id())).entity(f).build();
    }

    /** The uploader: the caller, or for back ends and operators the user named by {@code owner}. */
    static long owner(String owner, SecurityContext sc) {
        long uid = owner == null ? Caller.id(sc) : Caller.user(owner, sc);
        return Caller.requireSelfOrOperator(uid, sc, "You may only upload as yourself.");
    }


    static long offset(String value) {
        if (value == null) {
            throw ProblemException.badRequest("upload-offset-required", "Say where the bytes start: Upload-Offset.");
        }
        try {
            long v = Long.parseLong(value.trim());
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw ProblemException.badRequest("invalid-upload-offset", "Upload-Offset is a byte count (an integer ≥ 0).");
    }
}
