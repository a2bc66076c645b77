--@include counted-calls.lua
--@keys counter expiry sizes
-- Keeps a project's call records and logs counted (counted-calls.lua). Gives back first the
-- entries whose records have expired, then sets the given entries' bytes (a record written
-- again counts its new size, not both) and gives back the entries named to be released.
-- ARGV: how many entries are set (n); then n triples: entry, bytes, expires at (ms); then the
--       entries released (their records were deleted).
-- Returns the counter: the bytes the project's calls now store.
local n = tonumber(ARGV[1])
-- 0 - x, not -x: a Lua -0 reaches Redis as "-0", which INCRBY refuses.
local change = 0 - release_expired()
for i = 0, n - 1 do
  local entry, bytes = ARGV[2 + 3 * i], tonumber(ARGV[3 + 3 * i])
  change = change + bytes - tonumber(redis.call('HGET', KEYS[3], entry) or '0')
  redis.call('HSET', KEYS[3], entry, bytes)
  redis.call('ZADD', KEYS[2], ARGV[4 + 3 * i], entry)
end
for i = 2 + 3 * n, #ARGV do change = change - release(ARGV[i]) end
return add_to_counter(change)
