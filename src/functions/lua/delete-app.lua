#!lua flags=allow-oom
--@keys app app_config routes
-- Deletes an app record that has no routes (the caller then removes it from the indexes).
-- KEYS: app, app-config, routes (the app's own hash tag)
-- ARGV: name
-- Returns -1 when missing, 0 while it has routes, 1 when deleted.
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('ZCARD', KEYS[3]) > 0 then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
return 1
