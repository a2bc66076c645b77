--@keys app_pending project_apps projects wake
-- Queues a call message on its app's own list. The cluster's queue is two rings of lists, all
-- under the cluster's hash tag: `projects` lists the projects with queued calls, each project's
-- `project_apps` its apps with queued calls; a project or app is in its ring exactly while it has
-- calls queued, so runners taking in turn from each serve projects, then their apps, round-robin.
-- KEYS: the app's pending list, the project's ring of apps, the ring of projects, the wake list
-- ARGV: message, app name, project id, most wake tokens kept
-- Returns how many calls of the app are queued.
local queued = redis.call('LPUSH', KEYS[1], ARGV[1])
if queued == 1 then
  if redis.call('LPUSH', KEYS[2], ARGV[2]) == 1 then redis.call('LPUSH', KEYS[3], ARGV[3]) end
end
-- One token per call, for a runner blocked on the wake list (BLPOP) to look again.
redis.call('LPUSH', KEYS[4], '1')
redis.call('LTRIM', KEYS[4], 0, tonumber(ARGV[4]) - 1)
return queued
