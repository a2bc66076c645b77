--@keys in_flight projects holders
-- Gives the calls a dead runner had taken back to the front of their apps' lines, oldest first,
-- and puts those apps and projects back in their rings.
-- The per-project rings and per-app lists are named from the prefixes given, under the same hash
-- tag as KEYS.
-- KEYS: the runner's in-flight list, the ring of projects, holders
-- ARGV: runner id, prefix of project rings, prefix of app lists. Returns how many moved.
local moved = 0
while true do
  local message = redis.call('LPOP', KEYS[1])
  if not message then break end
  local invocation = cjson.decode(message).invocation
  local app, project = invocation.appName, invocation.projectId or ''
  local ring = ARGV[2] .. project
  if redis.call('RPUSH', ARGV[3] .. app, message) == 1 then
    if redis.call('RPUSH', ring, app) == 1 then redis.call('RPUSH', KEYS[2], project) end
  end
  moved = moved + 1
end
redis.call('SREM', KEYS[3], ARGV[1])
return moved
