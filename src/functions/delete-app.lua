--@keys apps project_apps app app_config routes
-- Deletes an app that has no routes. Returns -1 when missing, 0 while it has routes, 1 when deleted.
-- KEYS: apps, project-apps, app, app-config, routes
-- ARGV: name
if redis.call('EXISTS', KEYS[3]) == 0 then return -1 end
if redis.call('ZCARD', KEYS[5]) > 0 then return 0 end
redis.call('DEL', KEYS[3], KEYS[4])
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
