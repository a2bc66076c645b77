#!lua flags=allow-oom
--@include save-queue.lua
-- Removing push subscribers: save-queue.lua as it is, but run on a full Redis too (allow-oom).
-- The caller only ever passes the queue's settings with fewer subscribers, for a queue that
-- exists, so the record only shrinks.
