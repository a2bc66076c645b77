--@include cache-state.lua
--@keys names live
-- One page of a project's caches that hold live items, ordered by name.
-- KEYS: names zset, live zset (see cache-state.lua). ARGV: how many to skip, page size.
local skip, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
local now = now_ms()
local page = {}
local start = 0
local batch = 500
while #page < limit do
  local names = redis.call('ZRANGE', KEYS[1], start, start + batch - 1)
  if #names == 0 then break end
  for _, name in ipairs(names) do
    local live_until = redis.call('ZSCORE', KEYS[2], name)
    if live_until and (live_until == 'inf' or tonumber(live_until) > now) then
      if skip > 0 then
        skip = skip - 1
      elseif #page < limit then
        page[#page + 1] = name
      end
    end
  end
  start = start + batch
end
return page
