-- Media: files, images, voice and video that chat messages name by id.
--
-- media_upload: an upload in progress. Its bytes arrive in chunks (media_chunk under the upload's
-- id), each chunk committed with the upload's new length, so a client that lost its connection
-- continues from `received`. When the last byte is in, the upload becomes a media row (same id)
-- or, when the same user already stored the same content, the existing row's id is the answer
-- and the upload's chunks are deleted.
CREATE TABLE media_upload (
    id            BIGINT       PRIMARY KEY,
    owner_uid     BIGINT       NOT NULL,
    size          BIGINT       NOT NULL CHECK (size > 0),
    received      BIGINT       NOT NULL DEFAULT 0 CHECK (received >= 0 AND received <= size),
    sha256        BYTEA,                          -- what the client declared (checked at the end), if it did
    name          VARCHAR(255),
    created_at    TIMESTAMPTZ  NOT NULL DEFAULT now(),
    updated_at    TIMESTAMPTZ  NOT NULL DEFAULT now()
);
CREATE INDEX media_upload_owner_idx ON media_upload (owner_uid);
CREATE INDEX media_upload_updated_idx ON media_upload (updated_at);

-- A stored file. `upload_sha256` is the content the user uploaded (the dedupe key); `sha256` and
-- `size` are the bytes served (an image re-encoded without its metadata differs from its upload).
-- `store` says where the bytes are: 'db' (media_chunk rows under blob_id) or 's3' (the object
-- named by blob_id in the bucket). A removed file keeps its row (its messages show it as removed).
CREATE TABLE media (
    id             BIGINT       PRIMARY KEY,
    owner_uid      BIGINT       NOT NULL,
    upload_sha256  BYTEA        NOT NULL,
    sha256         BYTEA        NOT NULL,
    size           BIGINT       NOT NULL,
    content_type   VARCHAR(127) NOT NULL,
    kind           VARCHAR(8)   NOT NULL CHECK (kind IN ('image', 'voice', 'video', 'file')),
    name           VARCHAR(255),
    width          INT,
    height         INT,
    duration_ms    BIGINT,
    store          VARCHAR(8)   NOT NULL CHECK (store IN ('db', 's3')),
    blob_id        BIGINT       NOT NULL,
    thumb_blob_id  BIGINT,                        -- a JPEG thumbnail of an image, in the same store
    thumb_size     BIGINT,
    created_at     TIMESTAMPTZ  NOT NULL DEFAULT now(),
    used_at        TIMESTAMPTZ,                   -- the last time a send named it
    removed_at     TIMESTAMPTZ,
    removed_by     VARCHAR(64)                    -- 'purge' or the operator who deleted it
);
CREATE UNIQUE INDEX media_owner_content_idx ON media (owner_uid, upload_sha256) WHERE removed_at IS NULL;
CREATE INDEX media_created_idx ON media (created_at) WHERE removed_at IS NULL;

-- The bytes of the 'db' store (and of uploads in progress, whichever the store): chunks of at
-- most 256 KiB keyed by the offset they start at, so a download streams chunk by chunk, a range
-- starts at the chunk that holds its first byte, and a resumed upload appends wherever it stopped.
CREATE TABLE media_chunk (
    blob_id  BIGINT  NOT NULL,
    start    BIGINT  NOT NULL,
    data     BYTEA   NOT NULL,
    PRIMARY KEY (blob_id, start)
);
-- chunks are written once and read whole: no compression attempt for media that is compressed already
ALTER TABLE media_chunk ALTER COLUMN data SET STORAGE EXTERNAL;

-- Bytes a user holds (stored files and uploads in progress), the quota's counter: one row per user,
-- locked by whoever changes it, so two racing uploads cannot both pass the quota.
-- The same row counts the uploads started in the current minute (the upload rate limit).
CREATE TABLE media_usage (
    owner_uid       BIGINT       PRIMARY KEY,
    bytes           BIGINT       NOT NULL DEFAULT 0 CHECK (bytes >= 0),
    window_start    TIMESTAMPTZ  NOT NULL DEFAULT now(),
    window_uploads  INT          NOT NULL DEFAULT 0
);

-- Which messages name a file, so that a download is allowed exactly to whoever may see one of
-- them. One-to-one: a row per copy (per owner's timeline); group: a row per message. A recall, a
-- delete or the retention purge deletes the message's rows.
CREATE TABLE chat_media (
    media_id   BIGINT  NOT NULL,
    owner_uid  BIGINT  NOT NULL,
    msg_id     BIGINT  NOT NULL,
    PRIMARY KEY (media_id, owner_uid, msg_id)
);
CREATE INDEX chat_media_msg_idx ON chat_media (msg_id, owner_uid);

CREATE TABLE group_media (
    media_id  BIGINT  NOT NULL,
    group_id  BIGINT  NOT NULL,
    seq       BIGINT  NOT NULL,
    msg_id    BIGINT  NOT NULL,
    PRIMARY KEY (media_id, group_id, seq)
);
CREATE INDEX group_media_msg_idx ON group_media (group_id, seq);

-- A video message type beside image, file and voice.
ALTER TABLE chat_timeline DROP CONSTRAINT chat_timeline_msg_type_check;
ALTER TABLE chat_timeline ADD CONSTRAINT chat_timeline_msg_type_check
    CHECK (msg_type IN ('text', 'image', 'file', 'voice', 'video', 'location', 'custom', 'system'));
ALTER TABLE group_message DROP CONSTRAINT group_message_msg_type_check;
ALTER TABLE group_message ADD CONSTRAINT group_message_msg_type_check
    CHECK (msg_type IN ('text', 'image', 'file', 'voice', 'video', 'location', 'custom', 'system'));
