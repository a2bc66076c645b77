#!lua flags=allow-oom
--@include includes/queue-keys.lua
-- Deletes a queue: its record and every message. It only removes, so it runs on a full Redis
-- too (allow-oom), where a MULTI would be refused whole.
-- Returns 1 when the queue existed, else 0.
local existed = redis.call('EXISTS', K_QUEUE)
redis.call('UNLINK', unpack(KEYS, 1, QUEUE_KEY_COUNT))
return existed
