--@include cache-state.lua
-- Stores an item unless its condition fails.
-- ARGV: cache name, item key, value JSON, condition ('', 'add', 'replace' or 'cas'),
--       expected cas (for 'cas'), expires_in seconds (0: never), bytes allowance (the most the
--       project's caches may take), most caches.
-- Returns {'stored', cas} or {'exists'} / {'missing'} / {'cas_mismatch'} / {'caches_quota'} /
-- {'bytes_quota'} (nothing stored).
local name, key, json, condition, expected = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local expires_in = tonumber(ARGV[6])
local allowance, max_caches = tonumber(ARGV[7]), tonumber(ARGV[8])
local now = now_ms()
local live = is_live(key, now)

if condition == 'add' and live then return {'exists'} end
if (condition == 'replace' or condition == 'cas') and not live then return {'missing'} end
if condition == 'cas' and redis.call('HGET', KEYS[2], key) ~= expected then return {'cas_mismatch'} end

local change = #key + #json - item_bytes(key)
local refusal = quota_refusal(change, allowance, max_caches)
if refusal then return {refusal} end

local cas = next_cas()
account(name, change)
redis.call('HSET', KEYS[1], key, json)
redis.call('HSET', KEYS[2], key, cas)
if expires_in > 0 then
  redis.call('ZADD', KEYS[3], now + expires_in * 1000, key)
else
  redis.call('ZREM', KEYS[3], key)
end
refresh(name)
return {'stored', cas}
