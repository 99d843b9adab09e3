-- Roost V29: an admin may mute a member of a group (docs/architecture.md, "group"): until a time,
-- or for good ('infinity'). A muted member still reads; it may not send until the time has passed.
ALTER TABLE group_member ADD COLUMN muted_until TIMESTAMPTZ;
