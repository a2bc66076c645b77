--@include task-lib.lua
--@keys payloads total task_hashes...
-- Releases the queued payload entries (task-lib.lua's reserve_queued) of tasks that are no
-- longer queued: taken or ended by an earlier release, which keeps no entries, or deleted. A
-- missing record whose id (an object id: its first 8 hex digits are its creation second) is
-- younger than the grace may be one whose request is still being written: it is kept.
-- KEYS: the project's queued payloads hash and their total, then the hash of each task
-- ARGV: now in seconds, the grace in seconds, then the task ids (in KEYS order)
-- Returns how many entries were released.
local now, grace = tonumber(ARGV[1]), tonumber(ARGV[2])
local released = 0
for i = 3, #ARGV do
  local id = ARGV[i]
  local status = redis.call('HGET', KEYS[i], 'status')
  local born = tonumber(string.sub(id, 1, 8), 16) or 0
  if (status and status ~= 'queued') or (not status and born < now - grace) then
    if redis.call('HEXISTS', KEYS[1], id) == 1 then released = released + 1 end
    release_queued(KEYS[1], KEYS[2], id)
  end
end
return released
