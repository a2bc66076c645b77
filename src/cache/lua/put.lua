#!lua
--@include cache-state.lua
-- Stores an item unless its condition fails. Creates the cache, unless a cas check or a quota fails.
-- ARGV: cache name, item key, value JSON, condition ('', 'add', 'replace' or 'cas'),
--       expected cas (for 'cas'), expires_in seconds (0: never), bytes allowance (the most the
--       project's caches may take), most caches, flags (decimal, '0': none).
-- Returns {'stored', cas}; {'kept'} when add met a live item or replace met none (the item is
-- left as it was: not overwritten, not created); {'missing'} / {'cas_mismatch'} for a cas
-- that matches no item; {'caches_quota'} / {'bytes_quota'} (nothing stored, no cache made).
local name, key, json, condition, expected = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local expires_in = tonumber(ARGV[6])
local allowance, max_caches, flags = tonumber(ARGV[7]), tonumber(ARGV[8]), ARGV[9]
local now = now_ms()
local live = is_live(key, now)

if condition == 'cas' then
  if not live then return {'missing'} end
  if redis.call('HGET', KEYS[2], key) ~= expected then return {'cas_mismatch'} end
end
local kept = (condition == 'add' and live) or (condition == 'replace' and not live)
local change = kept and 0 or (#key + #json - item_bytes(key))
local refusal = quota_refusal(name, change, allowance, max_caches)
if refusal then return {refusal} end
create_cache(name)
if kept then return {'kept'} end

local cas = next_cas()
account(name, change)
redis.call('HSET', KEYS[1], key, json)
redis.call('HSET', KEYS[2], key, cas)
set_flags(key, cas, flags)
if expires_in > 0 then
  redis.call('ZADD', KEYS[3], now + expires_in * 1000, key)
else
  redis.call('ZREM', KEYS[3], key)
end
refresh(name)
return {'stored', cas}
