#!lua
--@include cache-state.lua
-- Stores an item unless its condition fails. Creates the cache, unless a cas check or a quota fails.
-- ARGV: cache name, item key, value JSON, condition ('', 'add', 'replace' or 'cas'),
--       expected cas (for 'cas'), expires_in seconds (0: never), bytes allowance (the most the
--       project's caches may take), most caches, flags (decimal, '0': none), and, for a large
--       value, its byte length: the value JSON is then '' and the HSETNX that follows this script
--       in the same MULTI writes it (CacheStore's putApart), so Lua never copies it. This script
--       leaves the field empty for that write when it stores, and held (HELD) when it does not and
--       the field was empty; unhold.lua, last in the MULTI, empties it again.
-- Returns {'stored', cas}; {'kept'} when add met a live item or replace met none (the item is
-- left as it was: not overwritten, not created); {'missing'} / {'cas_mismatch'} for a cas
-- that matches no item; {'caches_quota'} / {'bytes_quota'} (nothing stored, no cache made).
local name, key, json, condition, expected = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local expires_in = tonumber(ARGV[6])
local allowance, max_caches, flags = tonumber(ARGV[7]), tonumber(ARGV[8]), ARGV[9]
local apart = ARGV[10] ~= nil
local length = apart and tonumber(ARGV[10]) or #json
local now = now_ms()
local live = is_live(key, now)

-- An outcome that stores nothing; a value written apart must then find its field taken.
local function unstored(outcome)
  if apart then redis.call('HSETNX', KEYS[1], key, HELD) end
  return {outcome}
end

if condition == 'cas' then
  if not live then return unstored('missing') end
  if redis.call('HGET', KEYS[2], key) ~= expected then return unstored('cas_mismatch') end
end
local kept = (condition == 'add' and live) or (condition == 'replace' and not live)
local change = kept and 0 or (#key + length - item_bytes(key))
local refusal = quota_refusal(name, change, allowance, max_caches)
if refusal then return unstored(refusal) end
create_cache(name)
if kept then return unstored('kept') end

local cas = next_cas()
account(name, change)
-- Written apart, the value's place is held while the cache's indexes are brought in line, then left empty.
redis.call('HSET', KEYS[1], key, apart and HELD or json)
redis.call('HSET', KEYS[2], key, cas)
set_flags(key, cas, flags)
if expires_in > 0 then
  redis.call('ZADD', KEYS[3], now + expires_in * 1000, key)
else
  redis.call('ZREM', KEYS[3], key)
end
refresh(name)
if apart then redis.call('HDEL', KEYS[1], key) end
return {'stored', cas}
