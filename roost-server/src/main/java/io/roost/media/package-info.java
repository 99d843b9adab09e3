/**
 * Media: the files, images, voice and video that chat messages name by id. Uploads (streamed over
 * REST, resumable, or in chunks over the WebSocket), the content type found from the bytes, image
 * sizes, thumbnails and metadata stripping, durations, the per-user quota and upload rate, and the
 * bytes in a {@link io.roost.media.store.MediaStore} (PostgreSQL or an S3-compatible bucket). Who may
 * download a file is the business of whoever names it in a message: {@link MediaViewers}, which chat
 * implements.
 */
package io.roost.media;
