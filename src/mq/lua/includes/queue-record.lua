--@include queue-keys.lua
-- The queue record's `fields`, after its created_at: every queue record has created_at (set by
-- both post-messages and save-queue), so a false first value means the queue does not exist.
local function queue_record(...)
  return redis.call('HMGET', K_QUEUE, 'created_at', ...)
end
