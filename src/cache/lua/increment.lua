#!lua
--@include cache-state.lua
-- Adds `amount` to an item's integer value, creating the item with `amount` when it is absent.
-- Redis's HINCRBY does the exact 64-bit signed arithmetic and refuses overflow; the result is
-- read back as text because Lua numbers are doubles. A value stored as a string of digits
-- stays a string.
-- ARGV: cache name, item key, amount (decimal integer text), bytes allowance, most caches (see put.lua).
-- Returns {'ok', value text} or {'not_numeric'} / {'not_integer'} / {'out_of_range'} / {'overflow'} /
-- {'caches_quota'} / {'bytes_quota'}.
local name, key, amount = ARGV[1], ARGV[2], ARGV[3]
local allowance, max_caches = tonumber(ARGV[4]), tonumber(ARGV[5])

if not is_live(key, now_ms()) then
  local refusal = quota_refusal(name, #key + #amount - item_bytes(key), allowance, max_caches)
  if refusal then return {refusal} end
  remove_items(name, {key})
  account(name, #key + #amount)
  redis.call('HSET', KEYS[1], key, amount)
  redis.call('HSET', KEYS[2], key, next_cas())
  create_cache(name)
  refresh(name)
  return {'ok', amount}
end

local current = redis.call('HGET', KEYS[1], key)
local digits = string.match(current, '^"(-?%d+)"$')
local quoted = digits ~= nil
if not quoted then digits = string.match(current, '^-?%d+$') end
if not digits then
  if string.match(current, '^-?%d') then return {'not_integer'} end
  return {'not_numeric'}
end

if quoted then redis.call('HSET', KEYS[1], key, digits) end
local added = redis.pcall('HINCRBY', KEYS[1], key, amount)
if type(added) == 'table' and added.err then
  if quoted then redis.call('HSET', KEYS[1], key, current) end
  if string.find(added.err, 'overflow', 1, true) then return {'overflow'} end
  return {'out_of_range'}
end

local result = redis.call('HGET', KEYS[1], key)
if quoted then redis.call('HSET', KEYS[1], key, '"' .. result .. '"') end
account(name, item_bytes(key) - #key - #current)
local flags = flags_of(KEYS[9], key, redis.call('HGET', KEYS[2], key))
local cas = next_cas()
redis.call('HSET', KEYS[2], key, cas)
set_flags(key, cas, flags)
return {'ok', result}
