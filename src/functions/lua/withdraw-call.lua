--@keys app_pending project_apps projects
-- Takes a call message back before a runner took it (its caller stopped waiting); an app, then
-- a project, left without calls leaves its ring.
-- KEYS: the app's pending list, the project's ring of apps, the ring of projects
-- ARGV: message, app name, project id
-- Returns 1 when withdrawn, 0 when a runner took it already.
if redis.call('LREM', KEYS[1], 1, ARGV[1]) == 0 then return 0 end
if redis.call('LLEN', KEYS[1]) == 0 then
  redis.call('LREM', KEYS[2], 0, ARGV[2])
  if redis.call('LLEN', KEYS[2]) == 0 then redis.call('LREM', KEYS[3], 0, ARGV[3]) end
end
return 1
