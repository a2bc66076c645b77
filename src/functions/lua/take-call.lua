--@keys projects in_flight legacy_pending
-- A runner takes the next call: the next project of the ring that this runner does not skip
-- (those holding all the slots one project may hold on it), then that project's next app, then
-- the oldest call of that app, moved into the runner's in-flight list. Both rings turn by one on
-- each take (RPOPLPUSH: the last becomes first), so each project, and each app of a project, is
-- served in turn. An app, project, left without calls leaves its ring.
-- The per-project rings and per-app lists are named from the prefixes given, under the same hash
-- tag as KEYS (one slot: Redis Cluster runs it on one node).
-- KEYS: the ring of projects, the runner's in-flight list, the pending list of earlier versions
-- ARGV: prefix of project rings, prefix of app lists, then the project ids to skip
-- Returns the message, or false when none may be taken.
local skip = {}
for i = 3, #ARGV do skip[ARGV[i]] = true end
for _ = 1, redis.call('LLEN', KEYS[1]) do
  local project = redis.call('RPOPLPUSH', KEYS[1], KEYS[1])
  if not skip[project] then
    local ring = ARGV[1] .. project
    local app = redis.call('RPOPLPUSH', ring, ring)
    if app then
      local pending = ARGV[2] .. app
      local message = redis.call('LMOVE', pending, KEYS[2], 'RIGHT', 'LEFT')
      if redis.call('LLEN', pending) == 0 then redis.call('LREM', ring, 1, app) end
      if redis.call('LLEN', ring) == 0 then redis.call('LREM', KEYS[1], 1, project) end
      if message then return message end
    else
      redis.call('LREM', KEYS[1], 0, project)
    end
  end
end
-- Calls queued by an earlier version, in one list for all.
return redis.call('LMOVE', KEYS[3], KEYS[2], 'RIGHT', 'LEFT')
