--@include counted-calls.lua
--@keys counter expiry sizes queued
-- Admits a new call of a project (all under the project's hash tag): gives back the bytes of
-- call records that have expired and reads what the project's calls store (the caller refuses
-- the call when that leaves no room under stored_bytes); an async call also takes a place among
-- the project's calls waiting for a runner, unless `most` already wait.
-- KEYS: as counted-calls.lua, then the counter of the project's queued calls
-- ARGV: the most queued calls the project may have, for an async call; none for a sync call
-- Returns {bytes the project's calls store, 1 when the call took a place in the queue, 0 when
-- the queue was full (nothing taken), -1 for a sync call}.
-- 0 - x, not -x: a Lua -0 reaches Redis as "-0", which INCRBY refuses.
local stored = add_to_counter(0 - release_expired())
if ARGV[1] == nil then return {stored, -1} end
local queued = tonumber(redis.call('GET', KEYS[4]) or '0')
if queued + 1 > tonumber(ARGV[1]) then return {stored, 0} end
redis.call('SET', KEYS[4], queued + 1)
return {stored, 1}
