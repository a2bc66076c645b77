--@keys reserved
-- Reserves a route's hot containers under the project's `hot_containers` quota, in the step
-- that counts the others, so racing route saves cannot pass it. The hash (field `<app><path>`,
-- value `<containers>:<reserved at ms>`) is first repaired from the routes as the caller just
-- read them (`observed`), since an earlier release creates, changes and deletes routes without
-- it: an observed route missing here is added (reserved at 0); an entry older than the grace
-- takes the observed value, or goes when its route is gone; a younger one is a save in flight
-- and stays.
-- KEYS: the project's hot containers hash
-- ARGV: field, containers (0: not a hot route), quota, now (ms), grace (ms), then
--       observed field, containers pairs (the project's hot routes)
-- Returns {1, previous value or false} when reserved, {0, false} when over the quota.
local field, wanted, quota = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local now, grace = tonumber(ARGV[4]), tonumber(ARGV[5])
local observed = {}
for i = 6, #ARGV, 2 do observed[ARGV[i]] = ARGV[i + 1] end

local entries = redis.call('HGETALL', KEYS[1])
local held, previous = {}, false
for i = 1, #entries, 2 do
  local name, value = entries[i], entries[i + 1]
  local containers, at = string.match(value, '^(%d+):(%d+)$')
  containers, at = tonumber(containers) or 0, tonumber(at) or 0
  if name == field then previous = value end
  if at < now - grace then
    local truth = observed[name]
    if truth == nil then
      redis.call('HDEL', KEYS[1], name)
      containers = 0
    elseif tonumber(truth) ~= containers then
      redis.call('HSET', KEYS[1], name, truth .. ':0')
      containers = tonumber(truth)
    end
  end
  held[name] = containers
end
for name, truth in pairs(observed) do
  if held[name] == nil then
    redis.call('HSET', KEYS[1], name, truth .. ':0')
    held[name] = tonumber(truth)
  end
end

local others = 0
for name, containers in pairs(held) do
  if name ~= field then others = others + containers end
end
if wanted > 0 and others + wanted > quota then return {0, false} end
if wanted > 0 then
  redis.call('HSET', KEYS[1], field, ARGV[2] .. ':' .. ARGV[4])
else
  redis.call('HDEL', KEYS[1], field)
end
return {1, previous}
